import type { FeedbackRating } from "../api/send-feedback.ts";
import type { AssistantMessage } from "../store/chat-message.ts";
import { useChat, useStrings } from "../store/chat-store-context.ts";

const RATINGS: { rating: FeedbackRating; label: "helpful" | "unhelpful" }[] = [
  { rating: "up", label: "helpful" },
  { rating: "down", label: "unhelpful" },
];

/** A thumb drawn as SVG: emoji depend on the reader's fonts and show as boxes without them. */
function ThumbIcon({ down }: { down: boolean }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" width="16" height="16">
      <path
        fill="currentColor"
        transform={down ? "rotate(180 12 12)" : undefined}
        d="M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z"
      />
    </svg>
  );
}

/** Thumbs up/down for one answer; after sending, a thank-you note. */
export function FeedbackButtons({ message }: { message: AssistantMessage }) {
  const rate = useChat((state) => state.rate);
  const strings = useStrings();
  const { feedback } = message;
  return (
    <div className="feedback">
      {RATINGS.map(({ rating, label }) => (
        <button
          key={rating}
          type="button"
          className="icon-button"
          aria-label={strings[label]}
          aria-pressed={feedback?.rating === rating}
          disabled={feedback !== null}
          onClick={() => void rate(message.id, rating)}
        >
          <ThumbIcon down={rating === "down"} />
        </button>
      ))}
      <span className="feedback-status" role="status">
        {feedback?.status === "sent" ? strings.feedbackThanks : ""}
      </span>
    </div>
  );
}
