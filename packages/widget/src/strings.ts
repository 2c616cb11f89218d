/**
 * Every text the widget shows or announces, in English. A host translates or rewords any of them
 * with the `strings` option (`data-strings` as JSON); `{name}` stands for a value filled in.
 * Messages the server sends (its errors, its answers) come in the server's language.
 */
export const DEFAULT_STRINGS = {
  /** Panel heading and the floating button's label; the `title` option sets it too. */
  title: "Ask the book",
  /** The question box's placeholder; the `placeholder` option sets it too. */
  placeholder: "Ask a question about this book…",
  emptyState:
    "Ask a question about this book. You can also select text on the page and choose “Ask about this”.",
  yourQuestion: "Your question",
  send: "Send",
  stop: "Stop",
  clear: "Clear",
  clearConversation: "Clear conversation",
  closeChat: "Close chat",
  conversation: "Conversation",
  answer: "Answer",
  answering: "Answering…",
  answerComplete: "Answer complete.",
  answerFailed: "The answer failed.",
  answerTimedOut: "The answer timed out.",
  thinking: "Looking in the book…",
  answerStopped: "Answer stopped.",
  noResults: "The book does not seem to cover this question.",
  lowConfidence:
    "The book matches this question only loosely, so this answer may miss the point. Check the sources.",
  confidence: "Confidence: {level}",
  confidenceHigh: "high",
  confidenceMedium: "medium",
  confidenceLow: "low",
  sources: "Sources",
  /** Heading of the sources the answer does not cite, listed after the cited ones. */
  otherSources: "Also found",
  source: "Source {number}: {label}",
  yourSelection: "Your selection",
  fromYourSelection: "From your selection",
  image: "Image: {alt}",
  helpful: "Helpful answer",
  unhelpful: "Unhelpful answer",
  feedbackThanks: "Thanks for your feedback.",
  copyAnswer: "Copy answer as Markdown",
  copy: "Copy",
  copied: "Copied",
  share: "Share",
  shareAnswer: "Copy a link to this answer",
  linkCopied: "Link copied",
  shareFailed: "Could not share",
  retry: "Retry",
  retryInOneSecond: "You can try again in 1 second (at {time}).",
  retryInSeconds: "You can try again in {seconds} seconds (at {time}).",
  askAboutThis: "Ask about this",
  askingAboutSelection: "Asking about your selection ({count} characters)",
  removeSelection: "Remove the selected text",
  starterQuestions: "Try asking",
  followUps: "Ask next",
  searchLabel: "Search or ask",
  searchPlaceholder: "Search the book or ask a question…",
  closeSearch: "Close search",
  askRow: "Ask: {question}",
  searchResults: "Results",
  noSearchResults: "No sections match “{query}”.",
  networkError: "The assistant could not be reached. Check your connection and try again.",
  invalidResponse: "The answer could not be read. Please try again.",
  incompleteAnswer: "The answer was cut off. Please try again.",
  clientTimeout: "The answer is taking too long. Please try again.",
  unexpectedError: "Something went wrong. Please try again.",
  tooManyRequests: "Too many requests. Please wait and try again.",
  serverTimeout: "The answer took too long. Please try again.",
  unavailable: "The assistant is unavailable right now. Please try again later.",
  notSent: "The question could not be sent. Please try again.",
  questionTooLong:
    "Your question is {length} characters long; the limit is {limit}. Please shorten it.",
  selectionTooLong:
    "The selected text is {length} characters long; the limit is {limit}. Select a shorter passage.",
};

export type WidgetStrings = typeof DEFAULT_STRINGS;

/** Fills `{name}` placeholders; numbers are written the way the page's language writes them. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) return placeholder;
    return typeof value === "number"
      ? value.toLocaleString(document.documentElement.lang || "en-US")
      : value;
  });
}

/** The defaults with a host's overrides; anything that is not a non-empty string is ignored. */
export function resolveStrings(overrides: Partial<WidgetStrings> | undefined): WidgetStrings {
  const strings = { ...DEFAULT_STRINGS };
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (Object.hasOwn(DEFAULT_STRINGS, key) && typeof value === "string" && value.trim()) {
      strings[key as keyof WidgetStrings] = value;
    }
  }
  return strings;
}
