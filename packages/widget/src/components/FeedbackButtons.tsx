import type { FeedbackRating } from "../api/send-feedback.ts";
import type { AssistantMessage } from "../store/chat-message.ts";
import { useChat } from "../store/chat-store-context.ts";

const RATINGS: { rating: FeedbackRating; icon: string; label: string }[] = [
  { rating: "up", icon: "👍", label: "Helpful answer" },
  { rating: "down", icon: "👎", label: "Unhelpful answer" },
];

/** Thumbs up/down for one answer; once sent, a thank-you replaces nothing else. */
export function FeedbackButtons({ message }: { message: AssistantMessage }) {
  const rate = useChat((state) => state.rate);
  const { feedback } = message;
  return (
    <div className="feedback">
      {RATINGS.map(({ rating, icon, label }) => (
        <button
          key={rating}
          type="button"
          className="icon-button"
          aria-label={label}
          aria-pressed={feedback?.rating === rating}
          disabled={feedback !== null}
          onClick={() => void rate(message.id, rating)}
        >
          <span aria-hidden="true">{icon}</span>
        </button>
      ))}
      <span className="feedback-status" role="status">
        {feedback?.status === "sent" ? "Thanks for your feedback." : ""}
      </span>
    </div>
  );
}
