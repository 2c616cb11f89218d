/**
 * Puts text on the clipboard. The Clipboard API exists only in secure contexts, and documentation
 * is still served over plain http at times: there a hidden text area and `copy` stand in.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const focused = document.activeElement;
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.cssText = "position:fixed;opacity:0;pointer-events:none";
    document.body.append(area);
    area.select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch {
      // Neither way works here (an old or locked-down browser): nothing is copied.
    }
    area.remove();
    if (focused instanceof HTMLElement) focused.focus();
    return copied;
  }
}
