import { useEffect, useState } from "react";
import { shareAnswer } from "../api/share-answer.ts";
import type { AssistantMessage } from "../store/chat-message.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import { copyText } from "../util/copy-text.ts";

/** How long "Link copied" (or the failure) shows before the button reads "Share" again. */
const NOTE_MS = 3_000;

/** Makes a read-only link to a finished answer and puts it on the clipboard. */
export function ShareAnswerButton({ message }: { message: AssistantMessage }) {
  const strings = useStrings();
  const apiUrl = useChat((state) => state.options.apiUrl);
  const sessionId = useChat((state) => state.sessionId);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(null), NOTE_MS);
    return () => clearTimeout(timer);
  }, [note]);

  const share = async () => {
    if (!message.messageId) return;
    setBusy(true);
    try {
      const link = await shareAnswer(apiUrl, {
        session_id: sessionId,
        message_id: message.messageId,
      });
      setNote((await copyText(link)) ? strings.linkCopied : link);
    } catch {
      setNote(strings.shareFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className="text-button share-button"
        aria-label={strings.shareAnswer}
        title={strings.shareAnswer}
        disabled={busy}
        onClick={() => {
          void share();
        }}
      >
        {note ?? strings.share}
      </button>
      <span className="visually-hidden" role="status">
        {note ?? ""}
      </span>
    </>
  );
}
