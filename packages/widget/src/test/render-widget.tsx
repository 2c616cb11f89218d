import "@testing-library/jest-dom/vitest";
import { cleanup, render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, vi } from "vitest";
import { ChatWidget } from "../components/ChatWidget.tsx";
import { type LecternOptions, resolveOptions } from "../options.ts";
import { type ChatStore, createChatStore } from "../store/chat-store.ts";

export const API_URL = "https://api.example.com";

const stores: ChatStore[] = [];

/**
 * Renders the widget in the document (no shadow root, so screen queries reach it). Unless
 * `serverSuggestions` is set, the host gives no starter questions (`suggestions: []`), so the
 * empty panel asks the server for none and fetch sees only the requests a test is about.
 */
export function renderWidget(
  options: Partial<LecternOptions> = {},
  { serverSuggestions = false } = {},
) {
  const store = createChatStore(
    resolveOptions({
      apiUrl: API_URL,
      ...(serverSuggestions ? {} : { suggestions: [] }),
      ...options,
    }),
  );
  stores.push(store);
  const user = userEvent.setup();
  const view = render(<ChatWidget store={store} />);
  return { store, user, ...view };
}

/** Opens the panel and asks a question as a reader would. */
export async function ask(user: ReturnType<typeof userEvent.setup>, question: string) {
  const input = document.querySelector("textarea");
  if (!input) throw new Error("The panel is not open");
  await user.type(input, question);
  await user.keyboard("{Enter}");
}

afterEach(() => {
  cleanup();
  for (const store of stores.splice(0)) store.getState().dispose();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  window.sessionStorage.clear();
  document.body.replaceChildren();
});
