import { useChat, useStrings } from "../store/chat-store-context.ts";
import { fill } from "../strings.ts";
import { keepKeyboardFocus } from "./focus.ts";

/** The error or timeout of the last question, with Retry; a 429 also says when to try again. */
export function FailureNotice() {
  const status = useChat((state) => state.status);
  const failure = useChat((state) => state.failure);
  const retry = useChat((state) => state.retry);
  const strings = useStrings();
  if (!failure || (status !== "error" && status !== "timeout")) return null;

  const waitSeconds = failure.retryAfterSeconds;
  return (
    <div className="failure" role="alert" data-status={status}>
      <p className="failure-text">{failure.message}</p>
      {waitSeconds !== null ? (
        <p className="failure-text">
          {fill(waitSeconds === 1 ? strings.retryInOneSecond : strings.retryInSeconds, {
            seconds: waitSeconds,
            time: new Date(failure.at + waitSeconds * 1000).toLocaleTimeString(),
          })}
        </p>
      ) : null}
      <button
        type="button"
        className="secondary-button"
        onClick={(event) => {
          // The notice goes away as the question is asked again.
          keepKeyboardFocus(event);
          retry();
        }}
      >
        {strings.retry}
      </button>
    </div>
  );
}
