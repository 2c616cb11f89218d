// @vitest-environment jsdom
import { act, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { type FetchCall, installFetch, jsonResponse, sseResponse } from "../test/fetch-mock.ts";
import { API_URL, renderWidget } from "../test/render-widget.tsx";
import { searchResponse, URDF_RESULT, XACRO_RESULT } from "../test/search-fixtures.ts";
import { answerEvents } from "../test/sse-fixtures.ts";
import { navigation } from "./navigation.ts";

/** /search answers with both results; /chat/stream with an answer. */
function installBook(): FetchCall[] {
  return installFetch((call) =>
    call.url.includes("/search?")
      ? jsonResponse(200, searchResponse("", [XACRO_RESULT, URDF_RESULT]))
      : sseResponse(answerEvents()),
  );
}

/** A control on the host page that has focus before a shortcut is pressed. */
function focusPageButton(): HTMLButtonElement {
  const button = document.createElement("button");
  button.textContent = "Page button";
  document.body.prepend(button);
  button.focus();
  return button;
}

const searchBox = () => screen.getByRole("combobox", { name: "Search or ask" });
const searchRequests = (calls: FetchCall[]) =>
  calls.filter((call) => call.url.includes("/search?"));

describe("the search-and-ask box", () => {
  it("opens with ⌘K, Ctrl+K and / outside text fields; Esc closes it and gives focus back", async () => {
    const { user } = renderWidget();
    const pageButton = focusPageButton();

    for (const shortcut of ["{Meta>}k{/Meta}", "{Control>}k{/Control}", "/"]) {
      await user.keyboard(shortcut);
      const dialog = screen.getByRole("dialog", { name: "Search or ask" });
      expect(dialog).toHaveAttribute("aria-modal", "true");
      expect(searchBox()).toHaveFocus();
      await user.keyboard("{Escape}");
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
      expect(pageButton).toHaveFocus();
    }

    // In a text field `/` is a slash.
    const field = document.createElement("input");
    document.body.prepend(field);
    await user.click(field);
    await user.keyboard("/");
    expect(field).toHaveValue("/");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("keeps Tab inside the box", async () => {
    const { user } = renderWidget();
    await user.keyboard("{Control>}k{/Control}");
    const dialog = screen.getByRole("dialog");
    for (let step = 0; step < 4; step++) {
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
    await user.tab({ shift: true });
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
  });

  it("offers to ask the text first, then the matching sections with their words marked", async () => {
    const calls = installBook();
    const { user } = renderWidget();
    await user.keyboard("{Control>}k{/Control}");
    await user.type(searchBox(), "four wheels");

    const options = await waitFor(() => {
      const found = screen.getAllByRole("option");
      expect(found).toHaveLength(3);
      return found;
    });
    expect(options[0]).toHaveTextContent("Ask: four wheels");
    expect(options[0]).toHaveAttribute("aria-selected", "true");
    expect(options[1]).toHaveTextContent(
      "Describing a Robot with URDF › Reducing repetition with xacro",
    );
    expect(options[2]).toHaveTextContent("Describing a Robot with URDF");
    // Highlights are character ranges of the plain-text snippet, drawn as <mark>, never as HTML.
    const marks = (options[1] as HTMLElement).querySelectorAll("mark");
    expect(Array.from(marks, (mark) => mark.textContent)).toEqual(["four", "XML"]);
    expect(options[1]).toHaveTextContent("blocks of <XML>.");
    expect(options[1]?.querySelector("xml")).toBeNull();

    // Typing fast makes one request, for the whole text, limited to 8 results.
    const requests = searchRequests(calls);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe(`${API_URL}/search?q=four+wheels&limit=8`);
  });

  it("ignores a response that arrives after a newer text was typed", async () => {
    const pending: ((response: Response) => void)[] = [];
    const calls = installFetch(
      (call) =>
        new Promise<Response>((resolve) => {
          if (call.url.includes("/search?")) pending.push(resolve);
        }),
    );
    const { user } = renderWidget();
    await user.keyboard("{Control>}k{/Control}");
    await user.type(searchBox(), "urdf");
    await waitFor(() => expect(pending).toHaveLength(1));
    await user.type(searchBox(), " xacro");
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(searchRequests(calls)[0]?.signal?.aborted).toBe(true);

    // The newer answer arrives first, then the older one.
    await act(async () => {
      pending[1]?.(jsonResponse(200, searchResponse("urdf xacro", [XACRO_RESULT])));
    });
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(2));
    await act(async () => {
      pending[0]?.(jsonResponse(200, searchResponse("urdf", [URDF_RESULT, URDF_RESULT])));
    });
    expect(screen.getAllByRole("option")).toHaveLength(2);
    expect(screen.getAllByRole("option")[1]).toHaveTextContent("Reducing repetition with xacro");
  });

  it("chooses with the arrow keys and Enter: a result opens its page", async () => {
    installBook();
    const go = vi.spyOn(navigation, "go").mockImplementation(() => {});
    const { user } = renderWidget();
    await user.keyboard("/");
    await user.type(searchBox(), "xacro");
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(3));

    await user.keyboard("{ArrowDown}");
    const [, first, second] = screen.getAllByRole("option");
    expect(first).toHaveAttribute("aria-selected", "true");
    expect(searchBox()).toHaveAttribute("aria-activedescendant", first?.id);
    // Down past the last row wraps to the Ask row, and up from it to the last.
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowUp}");
    expect(second).toHaveAttribute("aria-selected", "true");
    await user.keyboard("{ArrowUp}{Enter}");

    expect(go).toHaveBeenCalledWith("/docs/description/urdf#xacro");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("opens a result with a click as well", async () => {
    installBook();
    const go = vi.spyOn(navigation, "go").mockImplementation(() => {});
    const { user } = renderWidget();
    await user.keyboard("/");
    await user.type(searchBox(), "urdf");
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(3));
    await user.click(screen.getAllByRole("option")[2] as HTMLElement);
    expect(go).toHaveBeenCalledWith("/docs/description/urdf");
  });

  it("asks the text in the chat from the Ask row; closing the chat gives focus back", async () => {
    const calls = installBook();
    const { user, store } = renderWidget();
    const pageButton = focusPageButton();
    await user.keyboard("{Meta>}k{/Meta}");
    await user.type(searchBox(), "What is xacro?");
    await user.keyboard("{Enter}");

    const panel = screen.getByRole("dialog", { name: "Ask the book" });
    expect(screen.queryByRole("combobox")).not.toBeInTheDocument();
    await waitFor(() => expect(store.getState().status).toBe("success"));
    const chat = calls.find((call) => call.url.endsWith("/chat/stream"));
    expect(chat?.body).toMatchObject({ query: "What is xacro?" });
    expect(within(panel).getByRole("article", { name: "Your question" })).toHaveTextContent(
      "What is xacro?",
    );
    await user.keyboard("{Escape}");
    await waitFor(() => expect(pageButton).toHaveFocus());
  });

  it("says so when nothing matches, and still offers to ask", async () => {
    installFetch(() => jsonResponse(200, searchResponse("zebra", [])));
    const { user } = renderWidget();
    await user.keyboard("/");
    await user.type(searchBox(), "zebra");
    expect(await screen.findByText("No sections match “zebra”.")).toBeInTheDocument();
    expect(screen.getAllByRole("option")).toHaveLength(1);
  });

  it("is reached from the open panel too, and gives focus back to it", async () => {
    installBook();
    const { user } = renderWidget();
    await user.click(screen.getByRole("button", { name: "Ask the book" }));
    const button = screen.getByRole("button", { name: "Search or ask" });
    await user.click(button);
    expect(searchBox()).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.getByRole("dialog", { name: "Ask the book" })).toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it("can be turned off: no shortcuts, no button; ⌘I still opens the chat", async () => {
    const { user } = renderWidget({ search: false });
    const pageButton = focusPageButton();
    await user.keyboard("{Control>}k{/Control}/");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    await user.keyboard("{Meta>}i{/Meta}");
    const panel = screen.getByRole("dialog", { name: "Ask the book" });
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();
    expect(within(panel).queryByRole("button", { name: "Search or ask" })).not.toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(pageButton).toHaveFocus();
  });
});

describe("⌘I", () => {
  it("opens the chat from anywhere (Ctrl+I too) and Esc gives focus back", async () => {
    const { user } = renderWidget();
    const pageButton = focusPageButton();
    await user.keyboard("{Control>}i{/Control}");
    expect(screen.getByRole("dialog", { name: "Ask the book" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Your question" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(pageButton).toHaveFocus();
  });
});
