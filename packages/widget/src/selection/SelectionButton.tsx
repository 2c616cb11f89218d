import type { RefObject } from "react";
import { useChat, useStrings } from "../store/chat-store-context.ts";
import { useTextSelection } from "./use-text-selection.ts";

/** "Ask about this", floating under text selected on the page. */
export function SelectionButton({ widgetRoot }: { widgetRoot: RefObject<HTMLElement | null> }) {
  const enabled = useChat((state) => state.options.askAboutSelection);
  const askAboutSelection = useChat((state) => state.askAboutSelection);
  const strings = useStrings();
  const [selection, dismiss] = useTextSelection(widgetRoot, enabled);
  if (!selection) return null;
  return (
    <button
      type="button"
      className="ask-selection"
      style={{ top: selection.top, left: selection.left }}
      // Keeps the page's selection: a mousedown here would otherwise clear it before the click.
      onMouseDown={(event) => event.preventDefault()}
      onClick={() => {
        askAboutSelection(selection.text);
        dismiss();
      }}
    >
      {strings.askAboutThis}
    </button>
  );
}
