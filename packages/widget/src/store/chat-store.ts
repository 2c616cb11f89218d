// Over 300 lines on purpose: the widget's one store, whose actions move between states that are easiest to check side by side.
import type { ChatRequestBody } from "@lectern/protocol";
import { createStore, type StoreApi } from "zustand/vanilla";
import { ChatRequestError, failureText } from "../api/chat-request-error.ts";
import { deleteHistory } from "../api/delete-history.ts";
import { type FeedbackRating, sendFeedback } from "../api/send-feedback.ts";
import { type ChatAnswerEvent, streamChat } from "../api/stream-chat.ts";
import { fetchStarterQuestions } from "../api/suggestions.ts";
import { STATIC_BOOK } from "../api/transport.ts";
import { readQuestions } from "../api/wire-checks.ts";
import type { ResolvedOptions } from "../options.ts";
import { fill, type WidgetStrings } from "../strings.ts";
import { pageDocsVersion, pageLocale } from "../util/docs-version.ts";
import { randomUuid } from "../util/random-uuid.ts";
import {
  type AssistantMessage,
  answerRouteOf,
  type ChatMessage,
  MAX_FOLLOW_UPS,
  newAssistantMessage,
} from "./chat-message.ts";
import {
  loadConversation,
  removeConversation,
  saveConversation,
  storageKeyFor,
} from "./persisted-conversation.ts";

/** IDLE → LOADING → SUCCESS / ERROR / TIMEOUT; Stop goes back to IDLE. */
export type ChatStatus = "idle" | "loading" | "success" | "error" | "timeout";

export interface ChatFailure {
  code: string;
  /** User-safe text: the server's `message`, or ours for network failures and timeouts. */
  message: string;
  /** Set for 429: how long to wait before trying again. */
  retryAfterSeconds: number | null;
  /** When the failure was seen, to tell the reader at what time to try again. */
  at: number;
}

export interface ChatState {
  options: ResolvedOptions;
  isOpen: boolean;
  status: ChatStatus;
  sessionId: string;
  messages: ChatMessage[];
  failure: ChatFailure | null;
  /** Text selected on the page, sent as `selected_text` with the next question. */
  selection: string | null;
  /** Why the question cannot be sent (too long), shown next to the question box. */
  inputError: string | null;
  /** The search-and-ask box is open. */
  searchOpen: boolean;
  /** Starter questions for the empty panel; null until they are known. */
  starterQuestions: string[] | null;

  open(): void;
  close(): void;
  toggle(): void;
  openSearch(): void;
  closeSearch(): void;
  /** Fetches the starter questions once, unless the host gave its own. */
  loadStarterQuestions(): void;
  /** Opens the panel and sends a question (a suggestion, the search box's Ask row). */
  ask(question: string): boolean;
  setOptions(options: ResolvedOptions): void;
  askAboutSelection(text: string): void;
  clearSelection(): void;
  /** Sends a question; false when it was not sent (empty, too long, or an answer is running). */
  send(question: string): boolean;
  /** Sends the last question again after an error or a timeout. */
  retry(): void;
  /** Aborts the answer being streamed, keeping what arrived. */
  stop(): void;
  clearConversation(): Promise<void>;
  rate(assistantMessageId: string, rating: FeedbackRating): Promise<void>;
  /** Aborts any request and stops writing to storage. */
  dispose(): void;
}

export type ChatStore = StoreApi<ChatState>;

interface PendingQuestion {
  question: string;
  selectedText: string | null;
}

interface RunningAnswer {
  controller: AbortController;
  stopped: boolean;
  timedOut: boolean;
}

export function createChatStore(initialOptions: ResolvedOptions): ChatStore {
  const storageKey = storageKeyFor(initialOptions.apiUrl);
  const restored = initialOptions.persist ? loadConversation(storageKey) : null;
  if (!initialOptions.persist) removeConversation(storageKey);

  let running: RunningAnswer | null = null;
  let loadingStarters = false;
  let lastQuestion: PendingQuestion | null = null;

  const store = createStore<ChatState>()((set, get) => {
    const updateAssistant = (
      id: string,
      change: (message: AssistantMessage) => Partial<AssistantMessage>,
    ) =>
      set((state) => ({
        messages: state.messages.map((message) =>
          message.id === id && message.role === "assistant"
            ? { ...message, ...change(message) }
            : message,
        ),
      }));

    const applyEvent = (assistantId: string, event: ChatAnswerEvent) => {
      switch (event.name) {
        case "delta":
          updateAssistant(assistantId, (message) => ({ text: message.text + event.data.delta }));
          break;
        case "sources": {
          const { data } = event;
          updateAssistant(assistantId, (message) => ({
            text: data.answer ?? message.text,
            complete: true,
            sources: data.sources,
            confidence: data.confidence,
            mode: data.metadata.mode,
            route: answerRouteOf(data.metadata.route),
            lowConfidence: data.metadata.low_confidence,
            fallbackMessage: data.fallback_message,
            suggestions: readQuestions(data.suggestions, MAX_FOLLOW_UPS),
          }));
          // The server may start a new session (an unknown id); follow-ups must use its id.
          if (data.session_id !== get().sessionId) set({ sessionId: data.session_id });
          break;
        }
        case "done":
          updateAssistant(assistantId, () => ({ messageId: event.data.message_id ?? null }));
          break;
      }
    };

    const answer = async (pending: PendingQuestion) => {
      const { options, sessionId } = get();
      const current: RunningAnswer = {
        controller: new AbortController(),
        stopped: false,
        timedOut: false,
      };
      running = current;
      lastQuestion = pending;
      const assistantId = randomUuid();
      set((state) => ({
        status: "loading",
        failure: null,
        messages: [...state.messages, newAssistantMessage(assistantId)],
      }));
      const timer = setTimeout(() => {
        current.timedOut = true;
        current.controller.abort();
      }, options.timeoutMs);

      const body: ChatRequestBody = {
        query: pending.question,
        session_id: sessionId,
        // The page without its query or fragment, which may carry things that are not ours to send.
        source_url: window.location.origin + window.location.pathname,
        // On a versioned or translated site, the answer comes from the page's version and language.
        ...docsVersionFilter(),
        // The widget's reader asks about a passage of the book: the book around it answers too.
        ...(pending.selectedText
          ? { selected_text: pending.selectedText, selection_scope: "selection_and_book" }
          : {}),
      };
      let answered = false;
      try {
        await streamChat(options.apiUrl, body, {
          signal: current.controller.signal,
          onEvent: (event) => {
            if (event.name === "sources") answered = true;
            applyEvent(assistantId, event);
          },
        });
        if (!answered) throw new ChatRequestError("INCOMPLETE_ANSWER", "");
        updateAssistant(assistantId, () => ({ streaming: false }));
        set({ status: "success" });
      } catch (error) {
        // Cleared or disposed meanwhile: that already reset the state.
        if (running !== current) return;
        if (current.stopped) {
          updateAssistant(assistantId, () => ({ streaming: false, stopped: true }));
          set({ status: "idle" });
          return;
        }
        // A failed answer is dropped whole: Retry asks again rather than continuing a fragment.
        set((state) => ({
          messages: state.messages.filter((message) => message.id !== assistantId),
        }));
        set(failureState(error, current.timedOut, get().options.strings));
      } finally {
        clearTimeout(timer);
        if (running === current) running = null;
      }
    };

    const sendFirstFeedback = async (id: string, rating: FeedbackRating) => {
      const { options, sessionId, messages } = get();
      const message = messages.find((candidate) => candidate.id === id);
      if (message?.role !== "assistant" || !message.messageId || message.feedback) return;
      updateAssistant(id, () => ({ feedback: { rating, status: "sending" } }));
      try {
        await sendFeedback(options.apiUrl, {
          session_id: sessionId,
          message_id: message.messageId,
          rating,
        });
        updateAssistant(id, () => ({ feedback: { rating, status: "sent" } }));
      } catch {
        // Feedback is optional: on failure the buttons simply come back for another try.
        updateAssistant(id, () => ({ feedback: null }));
      }
    };

    return {
      options: initialOptions,
      isOpen: false,
      status: "idle",
      sessionId: restored?.sessionId ?? randomUuid(),
      messages: restored?.messages ?? [],
      failure: null,
      selection: null,
      inputError: null,
      searchOpen: false,
      starterQuestions: initialOptions.suggestions,

      open: () => set({ isOpen: true, searchOpen: false }),
      close: () => {
        set({ isOpen: false });
        if (get().options.clearOnClose && get().messages.length > 0) void get().clearConversation();
      },
      toggle: () => {
        if (get().isOpen) {
          set({ searchOpen: false });
          get().close();
        } else set({ isOpen: true, searchOpen: false });
      },
      openSearch: () => {
        if (get().options.search) set({ searchOpen: true });
      },
      closeSearch: () => set({ searchOpen: false }),
      loadStarterQuestions: () => {
        if (loadingStarters) return;
        const { starterQuestions, options } = get();
        // A static book's engine starts with the empty panel even when the host gives the
        // starter questions, so that the reader's first question does not wait for its script
        // and the book's core; the host's questions still win.
        if (starterQuestions !== null && !options.apiUrl.startsWith(STATIC_BOOK)) return;
        loadingStarters = true;
        void fetchStarterQuestions(get().options.apiUrl).then((questions) => {
          // The host may have given its own meanwhile; those win.
          if (get().starterQuestions === null) set({ starterQuestions: questions });
        });
      },
      ask: (question) => {
        get().open();
        return get().send(question);
      },
      // A React host passes new props on every render; only real changes should re-render.
      setOptions: (options) => {
        if (sameOptions(get().options, options)) return;
        set({ options, ...(options.suggestions ? { starterQuestions: options.suggestions } : {}) });
      },

      askAboutSelection: (text) => {
        const selection = text.trim();
        if (!selection) return;
        set({
          selection,
          isOpen: true,
          inputError: selectionTooLong(selection, get().options),
        });
      },
      clearSelection: () => set({ selection: null, inputError: null }),

      send: (question) => {
        const text = question.trim();
        const { status, selection, options } = get();
        if (!text || status === "loading") return false;
        const inputError =
          questionTooLong(text, options) ??
          (selection ? selectionTooLong(selection, options) : null);
        if (inputError) {
          set({ inputError });
          return false;
        }
        set((state) => ({
          messages: [
            ...state.messages,
            { id: randomUuid(), role: "user", text, selectedText: selection },
          ],
          selection: null,
          inputError: null,
        }));
        void answer({ question: text, selectedText: selection });
        return true;
      },

      retry: () => {
        const { status } = get();
        if (lastQuestion && (status === "error" || status === "timeout")) void answer(lastQuestion);
      },

      stop: () => {
        if (!running) return;
        running.stopped = true;
        running.controller.abort();
      },

      clearConversation: async () => {
        const { options, sessionId } = get();
        const abandoned = running;
        running = null;
        lastQuestion = null;
        abandoned?.controller.abort();
        // A fresh session id unlinks the old history even if the DELETE below fails.
        set({
          messages: [],
          status: "idle",
          failure: null,
          selection: null,
          inputError: null,
          sessionId: randomUuid(),
        });
        try {
          await deleteHistory(options.apiUrl, sessionId);
        } catch {
          // The server purges idle sessions after its retention period anyway.
        }
      },

      rate: sendFirstFeedback,

      dispose: () => {
        const abandoned = running;
        running = null;
        abandoned?.controller.abort();
        unsubscribePersistence();
      },
    };
  });

  const unsubscribePersistence = persistConversation(store, storageKey);
  return store;
}

/** Writes the settled messages and the session id to sessionStorage whenever they change. */
function persistConversation(store: ChatStore, storageKey: string): () => void {
  let saved: ChatMessage[] = [];
  let savedSessionId = "";
  return store.subscribe((state) => {
    if (!state.options.persist) return;
    // A streaming answer is saved once it ends; each delta would otherwise rewrite storage.
    const settled = state.messages.filter(
      (message) => message.role === "user" || !message.streaming,
    );
    if (state.sessionId === savedSessionId && sameMessages(settled, saved)) return;
    saved = settled;
    savedSessionId = state.sessionId;
    saveConversation(storageKey, { sessionId: state.sessionId, messages: settled });
  });
}

function sameOptions(a: ResolvedOptions, b: ResolvedOptions): boolean {
  // Strings and suggestions are new objects on every resolve: compare what they hold.
  return (Object.keys(a) as (keyof ResolvedOptions)[]).every(
    (key) => a[key] === b[key] || JSON.stringify(a[key]) === JSON.stringify(b[key]),
  );
}

function sameMessages(a: ChatMessage[], b: ChatMessage[]): boolean {
  return a.length === b.length && a.every((message, index) => message === b[index]);
}

function failureState(
  error: unknown,
  clientTimedOut: boolean,
  strings: WidgetStrings,
): Partial<ChatState> {
  const at = Date.now();
  if (clientTimedOut) {
    return {
      status: "timeout",
      failure: {
        code: "CLIENT_TIMEOUT",
        message: strings.clientTimeout,
        retryAfterSeconds: null,
        at,
      },
    };
  }
  if (error instanceof ChatRequestError) {
    return {
      // The server's own timeout (504 or a TIMEOUT event) is the same situation for the reader.
      status: error.code === "TIMEOUT" ? "timeout" : "error",
      failure: {
        code: error.code,
        message: failureText(error, strings),
        retryAfterSeconds: error.retryAfterSeconds,
        at,
      },
    };
  }
  return {
    status: "error",
    failure: { code: "UNEXPECTED", message: strings.unexpectedError, retryAfterSeconds: null, at },
  };
}

function questionTooLong(question: string, options: ResolvedOptions): string | null {
  const limit = options.maxQuestionChars;
  return question.length > limit
    ? fill(options.strings.questionTooLong, { length: question.length, limit })
    : null;
}

function selectionTooLong(selection: string, options: ResolvedOptions): string | null {
  const limit = options.maxSelectionChars;
  return selection.length > limit
    ? fill(options.strings.selectionTooLong, { length: selection.length, limit })
    : null;
}

/**
 * `filters.version` for the page's docs version and `filters.locale` for its language, when the
 * page says which they are.
 */
function docsVersionFilter(): Pick<ChatRequestBody, "filters"> {
  const version = pageDocsVersion();
  const locale = pageLocale();
  if (!version && !locale) return {};
  return { filters: { ...(version ? { version } : {}), ...(locale ? { locale } : {}) } };
}
