import { useId, useLayoutEffect, useRef } from "react";
import type { ChatStatus } from "../store/chat-store.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import type { WidgetStrings } from "../strings.ts";
import { Composer } from "./Composer.tsx";
import { FailureNotice } from "./FailureNotice.tsx";
import { MessageList } from "./MessageList.tsx";
import { SelectionContext } from "./SelectionContext.tsx";
import { trapFocus } from "./trap-focus.ts";

/** What the hidden status region announces for each state. */
const STATUS_ANNOUNCEMENTS: Record<ChatStatus, keyof WidgetStrings | null> = {
  idle: null,
  loading: "answering",
  success: "answerComplete",
  error: "answerFailed",
  timeout: "answerTimedOut",
};

interface ChatPanelProps {
  id: string;
  onClose: () => void;
  onSearch: (() => void) | null;
}

/**
 * The open chat. Floating, it is a modal dialog that keeps focus inside until Esc or the close
 * button; as a side panel it sits beside the page, which stays in reach (to select text in it).
 */
export function ChatPanel({ id, onClose, onSearch }: ChatPanelProps) {
  const strings = useStrings();
  const side = useChat((state) => state.options.placement === "side");
  const status = useChat((state) => state.status);
  const hasConversation = useChat((state) => state.messages.length > 0 || state.selection !== null);
  const clearConversation = useChat((state) => state.clearConversation);
  const panelRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const announcement = STATUS_ANNOUNCEMENTS[status];

  // Focus before the panel is painted: with a passive effect (run after paint, later still on
  // preact) a reader who types as soon as the box shows loses the first keys.
  useLayoutEffect(() => {
    inputRef.current?.focus();
  }, []);

  return (
    <div
      id={id}
      ref={panelRef}
      className={side ? "panel side" : "panel"}
      role="dialog"
      aria-modal={side ? undefined : "true"}
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.stopPropagation();
          onClose();
        } else if (panelRef.current && !side) {
          trapFocus(event, panelRef.current);
        }
      }}
    >
      <header className="panel-header">
        <h2 id={titleId}>{strings.title}</h2>
        {onSearch ? (
          <button
            type="button"
            className="icon-button"
            aria-label={strings.searchLabel}
            title={strings.searchLabel}
            onClick={onSearch}
          >
            <svg aria-hidden="true" viewBox="0 0 24 24" width="18" height="18">
              <path
                fill="currentColor"
                d="M10 3a7 7 0 0 1 5.6 11.2l5.1 5.1-1.4 1.4-5.1-5.1A7 7 0 1 1 10 3zm0 2a5 5 0 1 0 0 10 5 5 0 0 0 0-10z"
              />
            </svg>
          </button>
        ) : null}
        <button
          type="button"
          className="text-button"
          aria-label={strings.clearConversation}
          disabled={!hasConversation}
          onClick={() => {
            void clearConversation();
            // The button disables itself; focus must stay inside the panel.
            inputRef.current?.focus();
          }}
        >
          {/* Short on screen so the title keeps its line; the full name is for assistive tech. */}
          {strings.clear}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={strings.closeChat}
          onClick={onClose}
        >
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <MessageList />
      <FailureNotice />
      <SelectionContext />
      <Composer inputRef={inputRef} />
      <p className="visually-hidden" role="status">
        {announcement ? strings[announcement] : ""}
      </p>
    </div>
  );
}
