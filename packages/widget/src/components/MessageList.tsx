import { useEffect, useRef } from "react";
import type { AssistantMessage } from "../store/chat-message.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import { AssistantMessageView } from "./AssistantMessageView.tsx";
import { SuggestedQuestions } from "./SuggestedQuestions.tsx";
import { UserMessageView } from "./UserMessageView.tsx";

/** Room left above an answer scrolled into view, so its edge is not flush with the list's. */
const SCROLL_MARGIN = 8;

/**
 * The conversation. It is a polite live region: while an answer streams it is marked busy, so
 * screen readers announce the answer once rather than every few words.
 */
export function MessageList() {
  const messages = useChat((state) => state.messages);
  const loading = useChat((state) => state.status === "loading");
  const strings = useStrings();
  const listRef = useRef<HTMLDivElement>(null);
  const latestAnswer = messages.findLast(
    (message): message is AssistantMessage => message.role === "assistant",
  );
  const latestAnswerId = latestAnswer?.id;

  // A new answer is read from its start: scroll it to the top of the list once, then leave the
  // scrolling to the reader while it streams (following the bottom would push the start away).
  useEffect(() => {
    const list = listRef.current;
    if (!list || !latestAnswerId) return;
    const answer = list.querySelector(`[data-message-id="${latestAnswerId}"]`);
    if (!answer) return;
    const offset = answer.getBoundingClientRect().top - list.getBoundingClientRect().top;
    list.scrollTop += offset - SCROLL_MARGIN;
  }, [latestAnswerId]);

  return (
    <div
      ref={listRef}
      className="messages"
      role="log"
      aria-live="polite"
      aria-busy={loading}
      aria-label={strings.conversation}
    >
      {messages.length === 0 ? (
        <EmptyState />
      ) : (
        messages.map((message) =>
          message.role === "user" ? (
            <UserMessageView key={message.id} message={message} />
          ) : (
            <AssistantMessageView
              key={message.id}
              message={message}
              latest={message.id === latestAnswerId}
            />
          ),
        )
      )}
    </div>
  );
}

/** What an empty panel says, with the starter questions once they are known. */
function EmptyState() {
  const strings = useStrings();
  const starterQuestions = useChat((state) => state.starterQuestions);
  const loadStarterQuestions = useChat((state) => state.loadStarterQuestions);

  useEffect(() => {
    loadStarterQuestions();
  }, [loadStarterQuestions]);

  return (
    <div className="empty">
      <p>{strings.emptyState}</p>
      <SuggestedQuestions title={strings.starterQuestions} questions={starterQuestions ?? []} />
    </div>
  );
}
