/** The focused element, looking inside shadow roots (the widget's own, the host page's). */
export function deepActiveElement(): HTMLElement | null {
  let active: Element | null = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement && active !== document.body ? active : null;
}

/**
 * After a control that goes away (or is disabled) once pressed: gives focus to the question box of
 * its panel when the press came from the keyboard (a click event's `detail` is 0), so the reader is
 * not left outside the panel, where Esc and Tab no longer reach it. A tap or a mouse click leaves
 * focus alone: on a phone the question box's focus would open the on-screen keyboard over the
 * answer.
 */
export function keepKeyboardFocus(event: { detail: number; currentTarget: Element }): void {
  if (event.detail !== 0) return;
  event.currentTarget
    .closest(".panel")
    ?.querySelector<HTMLTextAreaElement>(".composer textarea")
    ?.focus();
}

/** Whether an element shows keyboard focus (`:focus-visible`; true where that is unsupported). */
export function focusVisible(element: Element): boolean {
  try {
    return element.matches(":focus-visible");
  } catch {
    return true;
  }
}
