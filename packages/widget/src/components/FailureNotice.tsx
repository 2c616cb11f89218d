import { useChat } from "../store/chat-store-context.ts";

/** The error or timeout of the last question, with Retry; a 429 also says when to try again. */
export function FailureNotice() {
  const status = useChat((state) => state.status);
  const failure = useChat((state) => state.failure);
  const retry = useChat((state) => state.retry);
  if (!failure || (status !== "error" && status !== "timeout")) return null;

  const waitSeconds = failure.retryAfterSeconds;
  return (
    <div className="failure" role="alert" data-status={status}>
      <p className="failure-text">{failure.message}</p>
      {waitSeconds !== null ? (
        <p className="failure-text">
          You can try again in {waitSeconds} {waitSeconds === 1 ? "second" : "seconds"} (at{" "}
          {new Date(failure.at + waitSeconds * 1000).toLocaleTimeString()}).
        </p>
      ) : null}
      <button type="button" className="secondary-button" onClick={retry}>
        Retry
      </button>
    </div>
  );
}
