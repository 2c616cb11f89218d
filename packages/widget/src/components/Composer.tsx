import { type RefObject, useId, useState } from "react";
import { useChat, useStrings } from "../store/chat-store-context.ts";

/** The question box: Enter sends, Shift+Enter starts a new line; Stop replaces Send while answering. */
export function Composer({ inputRef }: { inputRef: RefObject<HTMLTextAreaElement | null> }) {
  const [draft, setDraft] = useState("");
  const loading = useChat((state) => state.status === "loading");
  const inputError = useChat((state) => state.inputError);
  const send = useChat((state) => state.send);
  const stop = useChat((state) => state.stop);
  const strings = useStrings();
  const inputId = useId();
  const errorId = useId();

  const submit = () => {
    if (send(draft)) setDraft("");
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={inputId} className="visually-hidden">
        {strings.yourQuestion}
      </label>
      {inputError ? (
        <p id={errorId} className="input-error" role="alert">
          {inputError}
        </p>
      ) : null}
      <div className="composer-row">
        <textarea
          id={inputId}
          ref={inputRef}
          rows={2}
          value={draft}
          placeholder={strings.placeholder}
          aria-invalid={inputError !== null}
          aria-describedby={inputError ? errorId : undefined}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
        />
        {loading ? (
          <button type="button" className="primary-button" onClick={stop}>
            {strings.stop}
          </button>
        ) : (
          <button type="submit" className="primary-button" disabled={draft.trim() === ""}>
            {strings.send}
          </button>
        )}
      </div>
    </form>
  );
}
