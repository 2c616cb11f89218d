import type { UserMessage } from "../store/chat-message.ts";
import { useStrings } from "../store/chat-store-context.ts";
import { shorten } from "../util/shorten.ts";

export function UserMessageView({ message }: { message: UserMessage }) {
  const strings = useStrings();
  return (
    <article className="message user" aria-label={strings.yourQuestion}>
      {message.selectedText ? (
        <blockquote className="quoted-selection">{shorten(message.selectedText, 280)}</blockquote>
      ) : null}
      <p>{message.text}</p>
    </article>
  );
}
