// @vitest-environment jsdom
import "./test/render-widget.tsx";
import { act, render, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { LecternChat } from "./LecternChat.tsx";
import { mount } from "./mount.tsx";
import {
  autoMount,
  defineLecternChat,
  ELEMENT_NAME,
  type LecternChatElement,
} from "./standalone.ts";

const API = "https://api.example.com";

/** Queries inside a shadow root, which screen queries do not enter. */
function inShadow(host: Element) {
  if (!host.shadowRoot) throw new Error("no shadow root");
  return within(host.shadowRoot as unknown as HTMLElement);
}

describe("mount", () => {
  it("renders the widget in a shadow root with its own stylesheet", async () => {
    const host = document.createElement("div");
    document.body.append(host);
    let widget!: ReturnType<typeof mount>;
    await act(async () => {
      widget = mount(host, { apiUrl: API, title: "Robotics helper" });
    });
    const shadow = host.shadowRoot;
    const adopted = shadow?.adoptedStyleSheets?.length ?? 0;
    expect(adopted > 0 || shadow?.querySelector("style") !== null).toBe(true);
    expect(host.children).toHaveLength(0); // nothing in the host page's own DOM
    expect(inShadow(host).getByRole("button", { name: "Robotics helper" })).toBeInTheDocument();

    await act(async () => widget.open());
    expect(inShadow(host).getByRole("dialog", { name: "Robotics helper" })).toBeInTheDocument();
    await act(async () => widget.update({ apiUrl: API, title: "Renamed" }));
    expect(inShadow(host).getByRole("dialog", { name: "Renamed" })).toBeInTheDocument();

    await act(async () => widget.unmount());
    expect(host.shadowRoot?.childNodes).toHaveLength(0);
  });
});

describe("<LecternChat />", () => {
  it("mounts in a shadow root and follows its props", async () => {
    const view = render(<LecternChat apiUrl={API} title="Docs helper" />);
    const host = view.container.querySelector("[data-lectern-chat]") as HTMLElement;
    expect(inShadow(host).getByRole("button", { name: "Docs helper" })).toBeInTheDocument();
    view.rerender(<LecternChat apiUrl={API} title="Book helper" />);
    expect(await inShadow(host).findByRole("button", { name: "Book helper" })).toBeInTheDocument();
    view.unmount();
  });
});

describe("standalone script", () => {
  it("defines <lectern-chat> and mounts one from its script tag's data attributes", async () => {
    defineLecternChat();
    const script = document.createElement("script");
    script.dataset.api = API;
    script.dataset.title = "Ask the primer";
    script.dataset.persist = "false";
    let element: HTMLElement | null = null;
    await act(async () => {
      element = autoMount(script);
    });
    expect(element).not.toBeNull();
    const mounted = document.querySelector(ELEMENT_NAME) as HTMLElement;
    expect(mounted).toBe(element);
    expect(mounted.dataset).toMatchObject({ api: API, title: "Ask the primer", persist: "false" });
    expect(inShadow(mounted).getByRole("button", { name: "Ask the primer" })).toBeInTheDocument();

    await act(async () => {
      mounted.dataset.title = "Retitled";
    });
    expect(await inShadow(mounted).findByRole("button", { name: "Retitled" })).toBeInTheDocument();
    await act(async () => mounted.remove());
    expect(mounted.shadowRoot?.childNodes).toHaveLength(0);
  });

  it("opens and closes from the page's own buttons through the element's methods", async () => {
    defineLecternChat();
    const element = document.createElement(ELEMENT_NAME) as LecternChatElement;
    element.dataset.api = API;
    element.dataset.title = "Ask the manual";
    element.dataset.persist = "false";
    await act(async () => document.body.append(element));
    const shadow = inShadow(element);
    expect(shadow.queryByRole("dialog", { name: "Ask the manual" })).toBeNull();

    await act(async () => element.open());
    expect(shadow.getByRole("dialog", { name: "Ask the manual" })).toBeInTheDocument();
    await act(async () => element.close());
    expect(shadow.queryByRole("dialog", { name: "Ask the manual" })).toBeNull();
    await act(async () => element.openSearch());
    expect(shadow.getByRole("dialog", { name: /search/i })).toBeInTheDocument();

    await act(async () => element.remove());
    // A removed element has no widget left to open: nothing happens, nothing throws.
    expect(() => element.open()).not.toThrow();
  });

  it("does nothing for a script without data-api", () => {
    expect(autoMount(document.createElement("script"))).toBeNull();
    expect(autoMount(null)).toBeNull();
  });
});
