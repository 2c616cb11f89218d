import { STATIC_BOOK } from "./api/transport.ts";
import { readQuestions } from "./api/wire-checks.ts";
import { resolveStrings, type WidgetStrings } from "./strings.ts";

/** What a host page can configure; `apiUrl` or `staticBook` is required. */
export interface LecternOptions {
  /** Base URL of the Lectern API, e.g. `https://book.example.com/api` (a trailing slash is fine). */
  apiUrl?: string;
  /**
   * A book built with `lectern build-static`: the URL of its `manifest.json` (e.g.
   * `/lectern/manifest.json`). The widget then answers in the reader's browser, with no server;
   * it wins over `apiUrl`.
   */
  staticBook?: string;
  /** Heading of the panel and label of the floating button (`strings.title`). */
  title?: string;
  /** Placeholder of the question box (`strings.placeholder`). */
  placeholder?: string;
  /** Main colour (any CSS colour): the button, the reader's messages, links and chips. */
  primaryColor?: string;
  /** Text colour drawn on the main colour; choose one that contrasts with `primaryColor`. */
  primaryTextColor?: string;
  /** `auto` follows the host site (`html[data-theme]`, then prefers-color-scheme). */
  theme?: "auto" | "light" | "dark";
  /** Keep the session id and the visible messages in sessionStorage (default true). */
  persist?: boolean;
  /**
   * Closing the panel ends the conversation: its messages are cleared and its history deleted on
   * the server (default false). With `persist: false`, nothing of it outlives the panel.
   */
  clearOnClose?: boolean;
  /** Longest the widget waits for a whole answer before showing a timeout (milliseconds). */
  timeoutMs?: number;
  /** Longest question, as the server enforces it (default 32,000 characters). */
  maxQuestionChars?: number;
  /** Longest selected text, as the server enforces it (default 64,000 characters). */
  maxSelectionChars?: number;
  /** Offer "Ask about this" next to text selected on the page (default true). */
  askAboutSelection?: boolean;
  /** The search-and-ask box on ⌘K / Ctrl+K and `/` (default true). */
  search?: boolean;
  /** A Share button under each answer (the server must run with SHARE_ENABLED; default false). */
  share?: boolean;
  /** `floating`: a panel above the button; `side`: a drawer along the right edge. */
  placement?: "floating" | "side";
  /** Starter questions for the empty panel; without them the server's `GET /suggestions`. */
  suggestions?: string[];
  /** Any of the widget's texts, reworded or translated (see strings.ts for the keys). */
  strings?: Partial<WidgetStrings>;
}

export interface ResolvedOptions {
  apiUrl: string;
  primaryColor: string | null;
  primaryTextColor: string | null;
  theme: "auto" | "light" | "dark";
  persist: boolean;
  clearOnClose: boolean;
  timeoutMs: number;
  maxQuestionChars: number;
  maxSelectionChars: number;
  askAboutSelection: boolean;
  search: boolean;
  share: boolean;
  placement: "floating" | "side";
  /** The host's starter questions; null to ask the server. */
  suggestions: string[] | null;
  strings: WidgetStrings;
}

export const DEFAULT_TIMEOUT_MS = 90_000;
export const DEFAULT_MAX_QUESTION_CHARS = 32_000;
export const DEFAULT_MAX_SELECTION_CHARS = 64_000;

export const MAX_STARTER_QUESTIONS = 4;

export function resolveOptions(options: LecternOptions): ResolvedOptions {
  // `title` and `placeholder` are older names for two of the strings, and win over them.
  const strings = resolveStrings({
    ...options.strings,
    ...(options.title?.trim() ? { title: options.title.trim() } : {}),
    ...(options.placeholder?.trim() ? { placeholder: options.placeholder.trim() } : {}),
  });
  return {
    apiUrl: apiUrlOf(options),
    primaryColor: options.primaryColor?.trim() || null,
    primaryTextColor: options.primaryTextColor?.trim() || null,
    theme: options.theme ?? "auto",
    persist: options.persist ?? true,
    clearOnClose: options.clearOnClose ?? false,
    timeoutMs: positiveOr(options.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxQuestionChars: positiveOr(options.maxQuestionChars, DEFAULT_MAX_QUESTION_CHARS),
    maxSelectionChars: positiveOr(options.maxSelectionChars, DEFAULT_MAX_SELECTION_CHARS),
    askAboutSelection: options.askAboutSelection ?? true,
    search: options.search ?? true,
    share: options.share ?? false,
    placement: options.placement === "side" ? "side" : "floating",
    suggestions: Array.isArray(options.suggestions)
      ? readQuestions(options.suggestions, MAX_STARTER_QUESTIONS)
      : null,
    strings,
  };
}

/** The API's base URL, or the static book's manifest marked as one (api/transport.ts). */
function apiUrlOf(options: LecternOptions): string {
  const book = options.staticBook?.trim();
  // Made absolute against the page (the worker resolves its script from it); on a server rendering
  // the page there is no page yet, and nothing is fetched there.
  const base = globalThis.document?.baseURI;
  if (book) return `${STATIC_BOOK}${base ? new URL(book, base).href : book}`;
  const apiUrl = options.apiUrl?.trim();
  if (!apiUrl)
    throw new Error("Lectern needs apiUrl (a Lectern server) or staticBook (a static build).");
  return apiUrl.replace(/\/+$/, "");
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
