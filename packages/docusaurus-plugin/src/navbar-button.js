/**
 * The browser half of the `navbarButton` option, a Docusaurus client module: an "Ask AI" button in
 * the navbar, beside the search box, that opens the chat of the `<lectern-chat>` element the
 * widget script adds to the page. The navbar is the theme's (and may be swizzled), so the button
 * is added to the rendered navbar after each route change rather than by replacing a component;
 * Docusaurus runs `onRouteDidUpdate` on the first render too, never on the server.
 */
import "./navbar-button.css";

export const BUTTON_CLASS = "lectern-navbar-button";
export const DEFAULT_LABEL = "Ask AI";
/** Written by the plugin (tags.js): the button's label. */
const LABEL_META = 'meta[name="docusaurus-plugin-lectern:navbar-button"]';
/** DocSearch, the search plugins that use Infima's class, and the theme's search container. */
const SEARCH =
  '.navbar .DocSearch-Button, .navbar .navbar__search, .navbar [class*="navbarSearchContainer"]';

export function onRouteDidUpdate() {
  addNavbarButton(document);
}

/**
 * Adds the button to the page's navbar unless it is there already (a page whose layout was
 * rendered anew has lost it): after the search box when there is one, else at the end of the
 * navbar's right-hand items. Returns the button, or null for a page without a navbar.
 * @param {Document} doc
 * @returns {HTMLButtonElement | null}
 */
export function addNavbarButton(doc) {
  const navbar = doc.querySelector("nav.navbar");
  if (!navbar) return null;
  const existing = navbar.querySelector(`.${BUTTON_CLASS}`);
  if (existing instanceof HTMLButtonElement) return existing;

  const button = doc.createElement("button");
  button.type = "button";
  button.className = BUTTON_CLASS;
  button.textContent =
    doc.querySelector(LABEL_META)?.getAttribute("content")?.trim() || DEFAULT_LABEL;
  // The chat opens as a dialog (a drawer in the side placement).
  button.setAttribute("aria-haspopup", "dialog");
  button.addEventListener("click", () => openChat(doc));

  const search = navbar.querySelector(SEARCH);
  const searchBox = search?.closest('[class*="navbarSearchContainer"]') ?? search;
  const right = navbar.querySelector(".navbar__items--right");
  if (searchBox) searchBox.after(button);
  else if (right) right.append(button);
  else (navbar.querySelector(".navbar__inner") ?? navbar).append(button);
  return button;
}

/**
 * Opens the chat once the widget script has defined `<lectern-chat>`: a reader quicker than the
 * deferred script still gets the chat, as soon as it is there.
 * @param {Document} doc
 */
export async function openChat(doc) {
  const registry = doc.defaultView?.customElements;
  if (!registry) return;
  await registry.whenDefined("lectern-chat");
  const chat = /** @type {(HTMLElement & { open?: () => void }) | null} */ (
    doc.querySelector("lectern-chat")
  );
  chat?.open?.();
}
