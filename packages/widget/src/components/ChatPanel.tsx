import { useId, useLayoutEffect, useRef } from "react";
import type { ChatStatus } from "../store/chat-store.ts";
import { useChat } from "../store/chat-store-context.ts";
import { Composer } from "./Composer.tsx";
import { FailureNotice } from "./FailureNotice.tsx";
import { MessageList } from "./MessageList.tsx";
import { SelectionContext } from "./SelectionContext.tsx";
import { trapFocus } from "./trap-focus.ts";

/** What the hidden status region announces for each state. */
const STATUS_ANNOUNCEMENTS: Record<ChatStatus, string> = {
  idle: "",
  loading: "Answering…",
  success: "Answer complete.",
  error: "The answer failed.",
  timeout: "The answer timed out.",
};

interface ChatPanelProps {
  id: string;
  onClose: () => void;
}

/** The open chat: a dialog that keeps focus inside until Esc or the close button. */
export function ChatPanel({ id, onClose }: ChatPanelProps) {
  const title = useChat((state) => state.options.title);
  const status = useChat((state) => state.status);
  const hasConversation = useChat((state) => state.messages.length > 0 || state.selection !== null);
  const clearConversation = useChat((state) => state.clearConversation);
  const panelRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();

  // Focus before the panel is painted: with a passive effect (run after paint, later still on
  // preact) a reader who types as soon as the box shows loses the first keys.
  useLayoutEffect(() => {
    inputRef.current?.focus();
  }, []);

  return (
    <div
      id={id}
      ref={panelRef}
      className="panel"
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.stopPropagation();
          onClose();
        } else if (panelRef.current) {
          trapFocus(event, panelRef.current);
        }
      }}
    >
      <header className="panel-header">
        <h2 id={titleId}>{title}</h2>
        <button
          type="button"
          className="text-button"
          aria-label="Clear conversation"
          disabled={!hasConversation}
          onClick={() => {
            void clearConversation();
            // The button disables itself; focus must stay inside the panel.
            inputRef.current?.focus();
          }}
        >
          {/* Short on screen so the title keeps its line; the full name is for assistive tech. */}
          Clear
        </button>
        <button type="button" className="icon-button" aria-label="Close chat" onClick={onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <MessageList />
      <FailureNotice />
      <SelectionContext />
      <Composer inputRef={inputRef} />
      <p className="visually-hidden" role="status">
        {STATUS_ANNOUNCEMENTS[status]}
      </p>
    </div>
  );
}
