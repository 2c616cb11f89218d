import { createContext, useContext } from "react";
import { useStore } from "zustand";
import type { WidgetStrings } from "../strings.ts";
import type { ChatState, ChatStore } from "./chat-store.ts";

export const ChatStoreContext = createContext<ChatStore | null>(null);

export function useChatStoreApi(): ChatStore {
  const store = useContext(ChatStoreContext);
  if (!store) throw new Error("Lectern components must be rendered inside <ChatWidget>.");
  return store;
}

/** Reads one slice of the widget's store; select primitives or stable references. */
export function useChat<T>(selector: (state: ChatState) => T): T {
  return useStore(useChatStoreApi(), selector);
}

/** The widget's texts, with the host's overrides. */
export function useStrings(): WidgetStrings {
  return useChat((state) => state.options.strings);
}
