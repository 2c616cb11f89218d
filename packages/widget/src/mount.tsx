import { createRoot } from "react-dom/client";
import { ChatWidget } from "./components/ChatWidget.tsx";
import { type LecternOptions, resolveOptions } from "./options.ts";
import { type ChatStore, createChatStore } from "./store/chat-store.ts";
import widgetCss from "./styles/widget.css?inline";

export interface MountedWidget {
  /** Applies new options (title, colours, limits…); the API URL and persistence stay as mounted. */
  update(options: LecternOptions): void;
  open(): void;
  close(): void;
  /** Opens the search-and-ask box (when the `search` option is on). */
  openSearch(): void;
  /** Removes the widget and aborts any request in flight. */
  unmount(): void;
  /** The widget's state, for hosts that want to watch or drive it. */
  readonly store: ChatStore;
}

/**
 * Renders the widget inside `element`'s shadow root, so the host page's styles and the widget's
 * never touch each other.
 */
export function mount(element: HTMLElement, options: LecternOptions): MountedWidget {
  const shadow = element.shadowRoot ?? element.attachShadow({ mode: "open" });
  const style = adoptStyles(shadow);
  const container = document.createElement("div");
  shadow.replaceChildren(...(style ? [style] : []), container);

  const store = createChatStore(resolveOptions(options));
  const root = createRoot(container);
  root.render(<ChatWidget store={store} />);

  return {
    store,
    update: (next) => store.getState().setOptions(resolveOptions(next)),
    open: () => store.getState().open(),
    close: () => store.getState().close(),
    openSearch: () => store.getState().openSearch(),
    unmount: () => {
      store.getState().dispose();
      root.unmount();
      container.remove();
      style?.remove();
      if (!style) shadow.adoptedStyleSheets = [];
    },
  };
}

/**
 * The widget's stylesheet, adopted by the shadow root where the browser can: a constructed sheet
 * is not inline style, so host pages with a strict Content-Security-Policy (no 'unsafe-inline')
 * still style the widget. Elsewhere a <style> element, which is returned to be removed later.
 */
function adoptStyles(shadow: ShadowRoot): HTMLStyleElement | undefined {
  if (typeof CSSStyleSheet === "function" && "adoptedStyleSheets" in shadow) {
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(widgetCss);
      shadow.adoptedStyleSheets = [sheet];
      return undefined;
    } catch {
      // Constructable stylesheets unsupported: fall back to the element below.
    }
  }
  const style = document.createElement("style");
  style.textContent = widgetCss;
  return style;
}
