/** The focused element, looking inside shadow roots (the widget's own, the host page's). */
export function deepActiveElement(): HTMLElement | null {
  let active: Element | null = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement && active !== document.body ? active : null;
}

/**
 * Gives focus to the question box of the panel holding `control`: for a control that goes away
 * (or is disabled) once pressed, so a keyboard reader is not left outside the panel, where Esc and
 * Tab no longer reach it.
 */
export function focusQuestionBox(control: Element): void {
  control.closest(".panel")?.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
}
