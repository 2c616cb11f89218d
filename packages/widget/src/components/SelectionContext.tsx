import { useChat, useStrings } from "../store/chat-store-context.ts";
import { fill } from "../strings.ts";
import { shorten } from "../util/shorten.ts";
import { keepKeyboardFocus } from "./focus.ts";

/** The page text the next question is about, with a way to drop it. */
export function SelectionContext() {
  const selection = useChat((state) => state.selection);
  const clearSelection = useChat((state) => state.clearSelection);
  const strings = useStrings();
  if (!selection) return null;
  return (
    <div className="selection-context">
      <div className="selection-header">
        <span>{fill(strings.askingAboutSelection, { count: selection.length })}</span>
        <button
          type="button"
          className="icon-button"
          aria-label={strings.removeSelection}
          onClick={(event) => {
            keepKeyboardFocus(event);
            clearSelection();
          }}
        >
          <span aria-hidden="true">×</span>
        </button>
      </div>
      <blockquote className="quoted-selection">{shorten(selection, 280)}</blockquote>
    </div>
  );
}
