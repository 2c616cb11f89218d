/** @import { HtmlTagObject, NormalizedNavbarButton, NormalizedOptions } from "./types.js" */

/**
 * `<script defer src="{apiUrl}/lectern.js" data-api="{apiUrl}" …>`, or in static mode
 * `<script defer src="{baseUrl}lectern/lectern.js" data-static-book="{baseUrl}lectern/manifest.json" …>`:
 * the widget's standalone script reads its options from these data-* attributes
 * (packages/widget/src/options-from-dataset.ts) and mounts the chat on the page. Only options that
 * were set are written, so the widget's own defaults apply to the rest.
 * @param {NormalizedOptions} options
 * @param {string} [baseUrl] the site's base URL (`/`, `/handbook/`), where a static book is built
 * @returns {HtmlTagObject}
 */
export function widgetScriptTag(options, baseUrl = "/") {
  const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  /** @type {Record<string, string | boolean>} */
  const attributes =
    options.mode === "static"
      ? {
          defer: true,
          src: options.scriptUrl ?? `${base}lectern/lectern.js`,
          "data-static-book": `${base}lectern/manifest.json`,
        }
      : { defer: true, src: options.scriptUrl ?? "", "data-api": options.apiUrl ?? "" };
  /** @param {string} name @param {string | number | boolean | undefined} value */
  const set = (name, value) => {
    if (value !== undefined) attributes[`data-${name}`] = String(value);
  };
  set("title", options.title);
  set("placeholder", options.placeholder);
  set("primary-color", options.colors.primary);
  set("primary-text-color", options.colors.primaryText);
  set("theme", options.theme);
  set("persist", options.persist);
  set("ask-about-selection", options.askAboutSelection);
  set("timeout-ms", options.timeoutMs);
  set("max-question-chars", options.maxQuestionChars);
  set("max-selection-chars", options.maxSelectionChars);
  set("placement", options.placement);
  return { tagName: "script", attributes };
}

/** The `<meta>` the navbar button's client module reads its label from. */
export const NAVBAR_BUTTON_META = "docusaurus-plugin-lectern:navbar-button";

/**
 * `<meta name="docusaurus-plugin-lectern:navbar-button" content="Ask AI">` in the head: the label of
 * the navbar button that navbar-button.js adds in the browser (it has no other way to receive the
 * plugin's options).
 * @param {NormalizedNavbarButton} button
 * @returns {HtmlTagObject}
 */
export function navbarButtonTag(button) {
  return { tagName: "meta", attributes: { name: NAVBAR_BUTTON_META, content: button.label } };
}
