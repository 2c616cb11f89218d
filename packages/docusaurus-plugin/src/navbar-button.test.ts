// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { addNavbarButton, onRouteDidUpdate, openChat } from "./navbar-button.js";

/** The navbar markup of Docusaurus 3's classic theme, with or without a search box. */
function navbar(search: string): void {
  document.body.innerHTML = `
    <nav class="navbar navbar--fixed-top">
      <div class="navbar__inner">
        <div class="navbar__items"><a class="navbar__brand" href="/">Handbook</a></div>
        <div class="navbar__items navbar__items--right">
          <a class="navbar__item navbar__link" href="/blog">Blog</a>
          <div class="toggle_x colorModeToggle_y"><button type="button">Theme</button></div>
          ${search}
        </div>
      </div>
    </nav>`;
}

afterEach(() => {
  document.head.innerHTML = "";
  document.body.innerHTML = "";
});

describe("the navbar button", () => {
  it("goes right after the search box, labelled from the plugin's meta tag", () => {
    document.head.innerHTML =
      '<meta name="docusaurus-plugin-lectern:navbar-button" content="Ask the handbook">';
    navbar(
      '<div class="navbarSearchContainer_Bca1"><button class="DocSearch DocSearch-Button">Search</button></div>',
    );
    const button = addNavbarButton(document);
    expect(button?.textContent).toBe("Ask the handbook");
    expect(button?.type).toBe("button");
    expect(button?.getAttribute("aria-haspopup")).toBe("dialog");
    expect(button?.previousElementSibling?.className).toBe("navbarSearchContainer_Bca1");
    // Not an Infima navbar item, which narrow screens hide.
    expect(button?.classList.contains("navbar__item")).toBe(false);
  });

  it("ends the right-hand items on a site without search, labelled Ask AI by default", () => {
    navbar("");
    onRouteDidUpdate();
    const right = document.querySelector(".navbar__items--right");
    expect(right?.lastElementChild?.textContent).toBe("Ask AI");
  });

  it("is added once, and again when a new layout has replaced the navbar", () => {
    navbar('<div class="navbar__search"><input class="navbar__search-input"></div>');
    const first = addNavbarButton(document);
    expect(addNavbarButton(document)).toBe(first);
    expect(document.querySelectorAll(".lectern-navbar-button")).toHaveLength(1);
    expect(first?.previousElementSibling?.className).toBe("navbar__search");

    navbar("");
    onRouteDidUpdate();
    expect(document.querySelectorAll(".lectern-navbar-button")).toHaveLength(1);
  });

  it("does nothing on a page without a navbar", () => {
    document.body.innerHTML = "<main>No navbar here</main>";
    expect(addNavbarButton(document)).toBeNull();
    expect(document.querySelector("button")).toBeNull();
  });

  it("opens the chat of <lectern-chat>, waiting for the widget script when it is late", async () => {
    navbar("");
    const opened: string[] = [];
    const button = addNavbarButton(document);
    button?.click();
    const chat = document.createElement("lectern-chat");
    document.body.append(chat);
    expect(opened).toEqual([]); // the element is not defined yet: the click waits for it

    // What the widget script defines (packages/widget/src/standalone.ts).
    customElements.define(
      "lectern-chat",
      class extends HTMLElement {
        open() {
          opened.push("open");
        }
      },
    );
    await customElements.whenDefined("lectern-chat");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(opened).toEqual(["open"]);

    await openChat(document);
    expect(opened).toEqual(["open", "open"]);
  });
});
