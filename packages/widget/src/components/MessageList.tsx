import { useEffect, useRef } from "react";
import { useChat } from "../store/chat-store-context.ts";
import { AssistantMessageView } from "./AssistantMessageView.tsx";
import { UserMessageView } from "./UserMessageView.tsx";

/**
 * The conversation. It is a polite live region: while an answer streams it is marked busy, so
 * screen readers announce the answer once rather than every few words.
 */
export function MessageList() {
  const messages = useChat((state) => state.messages);
  const loading = useChat((state) => state.status === "loading");
  const listRef = useRef<HTMLDivElement>(null);

  // Keep the newest text in view as it streams in.
  useEffect(() => {
    const list = listRef.current;
    if (list && messages.length > 0) list.scrollTop = list.scrollHeight;
  }, [messages]);

  return (
    <div
      ref={listRef}
      className="messages"
      role="log"
      aria-live="polite"
      aria-busy={loading}
      aria-label="Conversation"
    >
      {messages.length === 0 ? (
        <p className="empty">
          Ask a question about this book. You can also select text on the page and choose “Ask about
          this”.
        </p>
      ) : (
        messages.map((message) =>
          message.role === "user" ? (
            <UserMessageView key={message.id} message={message} />
          ) : (
            <AssistantMessageView key={message.id} message={message} />
          ),
        )
      )}
    </div>
  );
}
