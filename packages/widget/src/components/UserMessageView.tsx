import type { UserMessage } from "../store/chat-message.ts";
import { shorten } from "../util/shorten.ts";

export function UserMessageView({ message }: { message: UserMessage }) {
  return (
    <article className="message user" aria-label="Your question">
      {message.selectedText ? (
        <blockquote className="quoted-selection">{shorten(message.selectedText, 280)}</blockquote>
      ) : null}
      <p>{message.text}</p>
    </article>
  );
}
