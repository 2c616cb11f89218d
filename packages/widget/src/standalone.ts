import { type MountedWidget, mount } from "./mount.tsx";
import { optionsFromDataset } from "./options-from-dataset.ts";

export { mount };

/**
 * `<lectern-chat data-api="https://…/api" data-title="…">`: the widget as a custom element, for
 * pages without React. Its `data-*` attributes are the options (see options-from-dataset.ts).
 * `open()`, `close()` and `openSearch()` let the page's own buttons drive it
 * (`document.querySelector("lectern-chat").open()`), as `mount()`'s handle does.
 */
export class LecternChatElement extends HTMLElement {
  private widget: MountedWidget | null = null;

  /** Opens the chat panel. */
  open(): void {
    this.widget?.open();
  }

  close(): void {
    this.widget?.close();
  }

  /** Opens the search-and-ask box (when the `search` option is on). */
  openSearch(): void {
    this.widget?.openSearch();
  }

  connectedCallback(): void {
    const options = optionsFromDataset(this.dataset);
    if (!options) {
      console.error(
        "<lectern-chat> needs a data-api attribute with the Lectern API URL, or data-static-book with a static build's manifest URL.",
      );
      return;
    }
    this.widget ??= mount(this, options);
    this.observer.observe(this, { attributes: true });
  }

  disconnectedCallback(): void {
    this.observer.disconnect();
    this.widget?.unmount();
    this.widget = null;
  }

  /** data-* attributes change with a page's settings (a theme switch, a new title): follow them. */
  private readonly observer = new MutationObserver(() => {
    const options = optionsFromDataset(this.dataset);
    if (options) this.widget?.update(options);
  });
}

export const ELEMENT_NAME = "lectern-chat";

export function defineLecternChat(): void {
  if (!customElements.get(ELEMENT_NAME)) customElements.define(ELEMENT_NAME, LecternChatElement);
}

/**
 * `<script src=".../lectern.js" data-api="https://…">` (or `data-static-book="/lectern/manifest.json"`)
 * adds one `<lectern-chat>` to the page with the script's data-* attributes; a script with neither
 * only defines the element.
 */
export function autoMount(script: HTMLOrSVGScriptElement | null): HTMLElement | null {
  if (!(script instanceof HTMLScriptElement)) return null;
  if (!script.dataset.api && !script.dataset.staticBook) return null;
  const element = document.createElement(ELEMENT_NAME);
  for (const [key, value] of Object.entries(script.dataset)) {
    if (value !== undefined) element.dataset[key] = value;
  }
  const append = () => document.body.append(element);
  if (document.body) append();
  else document.addEventListener("DOMContentLoaded", append, { once: true });
  return element;
}

defineLecternChat();
autoMount(document.currentScript);
