import { useChat } from "../store/chat-store-context.ts";
import { keepKeyboardFocus } from "./focus.ts";

/** Questions the reader can ask with one press: starters in the empty panel, follow-ups. */
export function SuggestedQuestions({ title, questions }: { title: string; questions: string[] }) {
  const ask = useChat((state) => state.ask);
  const loading = useChat((state) => state.status === "loading");
  if (questions.length === 0) return null;
  return (
    <div className="suggestions">
      <p className="suggestions-title" aria-hidden="true">
        {title}
      </p>
      <ul aria-label={title}>
        {questions.map((question) => (
          <li key={question}>
            <button
              type="button"
              className="suggestion"
              disabled={loading}
              onClick={(event) => {
                // Asked, the suggestions are disabled or go away.
                keepKeyboardFocus(event);
                ask(question);
              }}
            >
              {question}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
