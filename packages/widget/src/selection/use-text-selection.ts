import { type RefObject, useEffect, useRef, useState } from "react";

export interface PageSelection {
  text: string;
  /** Viewport coordinates for the "Ask about this" button, just under the selection. */
  top: number;
  left: number;
}

const BUTTON_HEIGHT = 40;
const BUTTON_WIDTH = 150;
const GAP = 8;
/**
 * A selection made by touch ends with no mouseup or keyup: it is read once `selectionchange` has
 * been quiet this long (the handles are still being dragged before that).
 */
export const SELECTION_SETTLE_MS = 300;

/** The element that holds the widget on the page: the shadow host, or the widget's root itself. */
function widgetHost(root: HTMLElement | null): Node | null {
  const owner = root?.getRootNode();
  return owner instanceof ShadowRoot ? owner.host : root;
}

/**
 * The text the reader has selected on the host page (not inside the widget), once they finish
 * selecting with the mouse, the keyboard or a finger; null while nothing is selected.
 */
export function useTextSelection(
  widgetRoot: RefObject<HTMLElement | null>,
  enabled: boolean,
): [PageSelection | null, () => void] {
  const [selection, setSelection] = useState<PageSelection | null>(null);
  // The selection the reader already asked about: it is not offered again while it stands.
  const dismissed = useRef<string | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const read = () => {
      const current = document.getSelection();
      const text = current?.toString().trim() ?? "";
      if (!current || current.rangeCount === 0 || current.isCollapsed || !text) {
        dismissed.current = null;
        setSelection(null);
        return;
      }
      const host = widgetHost(widgetRoot.current);
      if (host && current.anchorNode && host.contains(current.anchorNode)) return;
      if (text === dismissed.current) return;
      const range = current.getRangeAt(0);
      // jsdom and some older engines have no layout for ranges; the button then sits top-left.
      const rect =
        typeof range.getBoundingClientRect === "function" ? range.getBoundingClientRect() : null;
      const below = (rect?.bottom ?? 0) + GAP;
      const top =
        below + BUTTON_HEIGHT > window.innerHeight && rect ? rect.top - BUTTON_HEIGHT - GAP : below;
      const left = Math.min(Math.max(rect?.left ?? 0, GAP), window.innerWidth - BUTTON_WIDTH - GAP);
      setSelection({ text, top: Math.max(top, GAP), left: Math.max(left, GAP) });
    };
    // Events from inside the widget (its own button, its text box) must not re-read the page.
    const fromPage = (event: Event) => {
      const host = widgetHost(widgetRoot.current);
      return !host || !event.composedPath().includes(host);
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const readAfter = (delay: number) => {
      clearTimeout(timer);
      timer = setTimeout(read, delay);
    };
    // The selection is final only after the mouseup's default action, hence the next task.
    const onPointerDone = (event: Event) => {
      if (fromPage(event)) readAfter(0);
    };
    // A collapsed selection is read after the same pause: a tap on "Ask about this" may collapse
    // it just before the tap's click, which must still find the button.
    const onSelectionChange = () => readAfter(SELECTION_SETTLE_MS);
    const hide = () => setSelection(null);
    document.addEventListener("mouseup", onPointerDone);
    document.addEventListener("keyup", onPointerDone);
    document.addEventListener("selectionchange", onSelectionChange);
    window.addEventListener("scroll", hide, true);
    window.addEventListener("resize", hide);
    return () => {
      clearTimeout(timer);
      document.removeEventListener("mouseup", onPointerDone);
      document.removeEventListener("keyup", onPointerDone);
      document.removeEventListener("selectionchange", onSelectionChange);
      window.removeEventListener("scroll", hide, true);
      window.removeEventListener("resize", hide);
    };
  }, [enabled, widgetRoot]);

  const dismiss = () => {
    dismissed.current = selection?.text ?? null;
    setSelection(null);
  };
  return [selection, dismiss];
}
