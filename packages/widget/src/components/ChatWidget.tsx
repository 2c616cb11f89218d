import { type CSSProperties, useEffect, useId, useRef } from "react";
import type { ResolvedOptions } from "../options.ts";
import { SearchDialog } from "../search/SearchDialog.tsx";
import { SelectionButton } from "../selection/SelectionButton.tsx";
import type { ChatStore } from "../store/chat-store.ts";
import { ChatStoreContext, useChat, useChatStoreApi } from "../store/chat-store-context.ts";
import { ChatPanel } from "./ChatPanel.tsx";
import { deepActiveElement } from "./focus.ts";
import { useHostTheme } from "./use-host-theme.ts";
import { useShortcuts } from "./use-shortcuts.ts";

/** The whole widget for one store: button, panel, search box and the selection button. */
export function ChatWidget({ store }: { store: ChatStore }) {
  return (
    <ChatStoreContext.Provider value={store}>
      <WidgetRoot />
    </ChatStoreContext.Provider>
  );
}

function WidgetRoot() {
  const options = useChat((state) => state.options);
  const isOpen = useChat((state) => state.isOpen);
  const searchOpen = useChat((state) => state.searchOpen);
  const open = useChat((state) => state.open);
  const close = useChat((state) => state.close);
  const openSearch = useChat((state) => state.openSearch);
  const closeSearch = useChat((state) => state.closeSearch);
  const theme = useHostTheme(options.theme);
  const rootRef = useRef<HTMLDivElement>(null);
  const launcherRef = useRef<HTMLButtonElement>(null);
  // Where focus was before a shortcut opened the chat or the search box, to give it back.
  const chatReturnFocus = useRef<HTMLElement | null>(null);
  const searchReturnFocus = useRef<HTMLElement | null>(null);
  const searchOverChat = useRef(false);
  const wasOpen = useRef(isOpen);
  const wasSearchOpen = useRef(searchOpen);
  const panelId = useId();
  const store = useChatStoreApi();

  // However the chat is opened (the button, a shortcut, `open()` from a button of the page's own),
  // the page's element focused at that moment gets focus back on closing. Read in the store's
  // own listener, before the panel renders and takes focus. Focus inside the widget (the search
  // box's Ask row) is left to the search box's own record, below.
  useEffect(
    () =>
      store.subscribe((state, previous) => {
        if (!state.isOpen || previous.isOpen) return;
        const active = deepActiveElement();
        if (active && !rootRef.current?.contains(active)) chatReturnFocus.current ??= active;
      }),
    [store],
  );

  const startSearch = () => {
    if (!searchOpen) {
      searchReturnFocus.current = deepActiveElement();
      searchOverChat.current = isOpen;
    }
    openSearch();
  };
  useShortcuts({
    onSearch: options.search ? startSearch : null,
    onChat: () => {
      // Already open (a side panel the reader left for the page): back to the question box.
      if (isOpen && !searchOpen) {
        rootRef.current?.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
        return;
      }
      if (!isOpen) chatReturnFocus.current = deepActiveElement();
      open();
    },
  });

  // Closing the chat gives focus back to where it was, else to the button that opens it again.
  useEffect(() => {
    if (wasOpen.current && !isOpen) {
      const target = chatReturnFocus.current;
      (target?.isConnected ? target : launcherRef.current)?.focus();
      chatReturnFocus.current = null;
    }
    wasOpen.current = isOpen;
  }, [isOpen]);

  // Closing the search box does the same, unless it opened the chat, which now has focus; the
  // chat then gives focus back to where the search box found it.
  useEffect(() => {
    if (wasSearchOpen.current && !searchOpen) {
      const target = searchReturnFocus.current;
      if (isOpen && !searchOverChat.current) chatReturnFocus.current ??= target;
      else target?.focus();
      searchReturnFocus.current = null;
    }
    wasSearchOpen.current = searchOpen;
  }, [searchOpen, isOpen]);

  return (
    <div ref={rootRef} className="lectern-root" data-theme={theme} style={colourVariables(options)}>
      <button
        ref={launcherRef}
        type="button"
        className="launcher"
        aria-expanded={isOpen}
        aria-controls={isOpen ? panelId : undefined}
        onClick={isOpen ? close : open}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="22" height="22">
          <path
            fill="currentColor"
            d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm3 5v2h10V9H7zm0 4v2h7v-2H7z"
          />
        </svg>
        <span>{options.strings.title}</span>
      </button>
      {isOpen ? (
        <ChatPanel id={panelId} onClose={close} onSearch={options.search ? startSearch : null} />
      ) : null}
      {searchOpen && options.search ? <SearchDialog onClose={closeSearch} /> : null}
      <SelectionButton widgetRoot={rootRef} />
    </div>
  );
}

/** The host's colours, as custom properties the stylesheet reads. */
function colourVariables(options: ResolvedOptions): CSSProperties {
  const variables: Record<string, string> = {};
  if (options.primaryColor) {
    variables["--lectern-primary"] = options.primaryColor;
    variables["--lectern-link"] = options.primaryColor;
  }
  if (options.primaryTextColor) variables["--lectern-on-primary"] = options.primaryTextColor;
  return variables as CSSProperties;
}
