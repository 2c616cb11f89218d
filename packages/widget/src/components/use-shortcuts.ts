import { useEffect, useRef } from "react";

export interface ShortcutHandlers {
  /** ⌘K / Ctrl+K, or `/` outside a text field; absent when search is off. */
  onSearch: (() => void) | null;
  /** ⌘I / Ctrl+I. */
  onChat: () => void;
}

/** Where typing `/` means a slash, not a shortcut. */
function isTextField(target: EventTarget | undefined): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

/** The page-wide keyboard shortcuts that open the search box and the chat. */
export function useShortcuts(handlers: ShortcutHandlers): void {
  const latest = useRef(handlers);
  latest.current = handlers;

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing || event.altKey) return;
      const { onSearch, onChat } = latest.current;
      const key = event.key.toLowerCase();
      const command = (event.metaKey || event.ctrlKey) && !event.shiftKey;
      // Inside a shadow root the event's target is the host: the path knows the real element.
      const slash =
        key === "/" && !event.metaKey && !event.ctrlKey && !isTextField(event.composedPath()[0]);
      const action =
        (command && key === "k") || slash ? onSearch : command && key === "i" ? onChat : null;
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
}
