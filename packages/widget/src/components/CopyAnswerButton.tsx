import { useEffect, useState } from "react";
import { answerMarkdown } from "../citations/answer-markdown.ts";
import type { AssistantMessage } from "../store/chat-message.ts";
import { useStrings } from "../store/chat-store-context.ts";
import { copyText } from "../util/copy-text.ts";

/** How long "Copied" shows before the button reads "Copy" again. */
const COPIED_NOTE_MS = 2_000;

/** Copies a finished answer, with its numbered sources, as Markdown. */
export function CopyAnswerButton({ message }: { message: AssistantMessage }) {
  const strings = useStrings();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_NOTE_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  return (
    <>
      <button
        type="button"
        className="text-button copy-button"
        aria-label={strings.copyAnswer}
        title={strings.copyAnswer}
        onClick={() => {
          void copyText(answerMarkdown(message, strings)).then(setCopied);
        }}
      >
        {copied ? strings.copied : strings.copy}
      </button>
      <span className="visually-hidden" role="status">
        {copied ? strings.copied : ""}
      </span>
    </>
  );
}
