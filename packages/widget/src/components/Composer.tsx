import { type RefObject, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { useChat, useChatStoreApi, useStrings } from "../store/chat-store-context.ts";
import { focusVisible } from "./focus.ts";

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
  const store = useChatStoreApi();
  const actionRef = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);

  // Stop turns back into Send when the answer ends, and Send is disabled while the box is empty.
  // The browser drops focus from a disabled button, so a keyboard reader who was on Stop would be
  // left outside the panel (Esc and Tab no longer reach it). The store says the answer ended
  // before the button changes, so that is the moment to see whether Stop held the focus. Only
  // keyboard focus: on a phone a tapped Stop must not open the on-screen keyboard over the answer.
  useEffect(
    () =>
      store.subscribe((state, previous) => {
        if (previous.status !== "loading" || state.status === "loading") return;
        const button = actionRef.current;
        const root = button?.getRootNode() as Document | ShadowRoot | undefined;
        refocus.current = button != null && root?.activeElement === button && focusVisible(button);
      }),
    [store],
  );
  useLayoutEffect(() => {
    if (loading || !refocus.current) return;
    refocus.current = false;
    inputRef.current?.focus();
  }, [loading, inputRef]);

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
          <button ref={actionRef} type="button" className="primary-button" onClick={stop}>
            {strings.stop}
          </button>
        ) : (
          <button
            ref={actionRef}
            type="submit"
            className="primary-button"
            disabled={draft.trim() === ""}
          >
            {strings.send}
          </button>
        )}
      </div>
    </form>
  );
}
