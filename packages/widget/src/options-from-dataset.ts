import type { LecternOptions } from "./options.ts";

/**
 * Options from `data-*` attributes, as written on the script tag or on `<lectern-chat>`:
 * data-api (or data-static-book, a static build's manifest URL), data-title, data-placeholder, data-primary-color, data-primary-text-color,
 * data-theme, data-persist, data-clear-on-close, data-timeout-ms, data-max-question-chars, data-max-selection-chars,
 * data-ask-about-selection, data-search, data-share, data-placement, data-suggestions (a JSON array of
 * strings) and data-strings (a JSON object).
 */
export function optionsFromDataset(dataset: DOMStringMap): LecternOptions | null {
  const apiUrl = dataset.api?.trim();
  const staticBook = dataset.staticBook?.trim();
  if (!apiUrl && !staticBook) return null;
  const options: LecternOptions = staticBook ? { staticBook } : { apiUrl: apiUrl as string };
  if (dataset.title) options.title = dataset.title;
  if (dataset.placeholder) options.placeholder = dataset.placeholder;
  if (dataset.primaryColor) options.primaryColor = dataset.primaryColor;
  if (dataset.primaryTextColor) options.primaryTextColor = dataset.primaryTextColor;
  const theme = dataset.theme;
  if (theme === "auto" || theme === "light" || theme === "dark") options.theme = theme;
  const persist = booleanAttribute(dataset.persist);
  if (persist !== undefined) options.persist = persist;
  const clearOnClose = booleanAttribute(dataset.clearOnClose);
  if (clearOnClose !== undefined) options.clearOnClose = clearOnClose;
  const askAboutSelection = booleanAttribute(dataset.askAboutSelection);
  if (askAboutSelection !== undefined) options.askAboutSelection = askAboutSelection;
  const timeoutMs = numberAttribute(dataset.timeoutMs);
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  const maxQuestionChars = numberAttribute(dataset.maxQuestionChars);
  if (maxQuestionChars !== undefined) options.maxQuestionChars = maxQuestionChars;
  const maxSelectionChars = numberAttribute(dataset.maxSelectionChars);
  if (maxSelectionChars !== undefined) options.maxSelectionChars = maxSelectionChars;
  const search = booleanAttribute(dataset.search);
  if (search !== undefined) options.search = search;
  const share = booleanAttribute(dataset.share);
  if (share !== undefined) options.share = share;
  if (dataset.placement === "side" || dataset.placement === "floating")
    options.placement = dataset.placement;
  const suggestions = jsonAttribute(dataset.suggestions, "data-suggestions");
  if (Array.isArray(suggestions)) options.suggestions = suggestions;
  const strings = jsonAttribute(dataset.strings, "data-strings");
  if (typeof strings === "object" && strings !== null && !Array.isArray(strings))
    options.strings = strings;
  return options;
}

/** A JSON attribute; a malformed one is reported once and ignored rather than breaking the page. */
function jsonAttribute(value: string | undefined, name: string): unknown {
  if (!value?.trim()) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    console.warn(`Lectern: ${name} is not valid JSON and was ignored.`);
    return undefined;
  }
}

/** `data-persist="false"` (or "0", "off", "no") turns an option off; a bare attribute turns it on. */
function booleanAttribute(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !["false", "0", "off", "no"].includes(value.trim().toLowerCase());
}

function numberAttribute(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number > 0 ? number : undefined;
}
