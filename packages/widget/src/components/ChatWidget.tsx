import { type CSSProperties, useEffect, useId, useRef } from "react";
import type { ResolvedOptions } from "../options.ts";
import { SelectionButton } from "../selection/SelectionButton.tsx";
import type { ChatStore } from "../store/chat-store.ts";
import { ChatStoreContext, useChat } from "../store/chat-store-context.ts";
import { ChatPanel } from "./ChatPanel.tsx";
import { useHostTheme } from "./use-host-theme.ts";

/** The whole widget for one store: floating button, panel and the selection button. */
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
  const open = useChat((state) => state.open);
  const close = useChat((state) => state.close);
  const theme = useHostTheme(options.theme);
  const rootRef = useRef<HTMLDivElement>(null);
  const launcherRef = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(isOpen);
  const panelId = useId();

  // Closing returns focus to the button that opens the panel again.
  useEffect(() => {
    if (wasOpen.current && !isOpen) launcherRef.current?.focus();
    wasOpen.current = isOpen;
  }, [isOpen]);

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
        <span>{options.title}</span>
      </button>
      {isOpen ? <ChatPanel id={panelId} onClose={close} /> : null}
      <SelectionButton widgetRoot={rootRef} />
    </div>
  );
}

/** The host's colours, as custom properties the stylesheet reads. */
function colourVariables(options: ResolvedOptions): CSSProperties {
  const variables: Record<string, string> = {};
  if (options.primaryColor) variables["--lectern-primary"] = options.primaryColor;
  if (options.primaryTextColor) variables["--lectern-on-primary"] = options.primaryTextColor;
  return variables as CSSProperties;
}
