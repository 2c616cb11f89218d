import type { MouseEvent } from "react";
import { revealPassage } from "./reveal-passage.ts";

const withoutTrailingSlash = (path: string) => path.replace(/\/+$/, "") || "/";

/**
 * Handles a click on a citation link. When the cited section is on the page being read, the page
 * is scrolled and the passage highlighted instead of reloading it; returns true then. Other
 * clicks (another page, or opening in a new tab) are left to the browser.
 */
export function openCitation(
  event: MouseEvent<HTMLAnchorElement>,
  sourceUrl: string,
  snippet: string | null,
): boolean {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return false;
  }
  let target: URL;
  try {
    target = new URL(sourceUrl, window.location.href);
  } catch {
    return false;
  }
  const here = window.location;
  if (
    target.origin !== here.origin ||
    withoutTrailingSlash(target.pathname) !== withoutTrailingSlash(here.pathname)
  ) {
    return false;
  }
  event.preventDefault();
  const anchor = target.hash ? decodeURIComponent(target.hash.slice(1)) : null;
  revealPassage(document, anchor, snippet);
  return true;
}
