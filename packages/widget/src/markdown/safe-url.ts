/**
 * Link and image rules for rendered answers: answers quote the book and may one day come from a
 * model, so nothing in them may run script or load content from elsewhere unasked.
 */

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/** Drops the characters browsers ignore in URLs, which would otherwise hide `java\tscript:`. */
function stripIgnoredCharacters(url: string): string {
  let result = "";
  for (const char of url) {
    const code = char.charCodeAt(0);
    if (code > 0x20 && code !== 0x7f) result += char;
  }
  return result;
}

/** An http(s) URL, a relative URL or a #anchor, cleaned; null for anything else (javascript:, data:…). */
export function safeLinkUrl(raw: string): string | null {
  const url = stripIgnoredCharacters(raw);
  if (!url) return null;
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === "http" || scheme === "https") return url;
  return null;
}

/** Whether a safe URL resolves to the host page's own origin (relative URLs always do). */
export function isSameOrigin(url: string, base: string = window.location.href): boolean {
  try {
    return new URL(url, base).origin === new URL(base).origin;
  } catch {
    return false;
  }
}
