/**
 * How the common documentation generators lay out a page: where the article is, what around and
 * inside it is not content, and how admonitions are marked. Read by extract.ts.
 */

/**
 * Where each generator puts a page's article, most specific first: Docusaurus, VitePress,
 * MkDocs Material, Sphinx (basic themes and Read the Docs), MkDocs' own themes, Hugo, then any
 * `main` or `article`.
 */
export const MAIN_SELECTORS = [
  ".theme-doc-markdown",
  "article .markdown",
  ".vp-doc",
  "article.md-content__inner",
  ".md-content__inner",
  "div.body[role=main]",
  "div[itemprop=articleBody]",
  "div[role=main]",
  "main article",
  "article",
  "main",
  "[role=main]",
];

/**
 * Pages that list other pages rather than say anything of their own, read for their links but not
 * indexed: Docusaurus's tag pages (docs and blog) and blog lists, marked on `<html>`.
 */
export const LISTING_PAGE_SELECTORS = [
  "html.docs-tags-list-page",
  "html.docs-tags-doc-list-page",
  "html.blog-list-page",
  "html.blog-tags-list-page",
  "html.blog-tags-post-list-page",
];

/** Parts of a page that are not its content, wherever they sit. */
export const NOISE_SELECTORS = [
  "script",
  "style",
  "noscript",
  "template",
  "nav",
  "footer",
  "form",
  "button",
  "svg",
  "[role=navigation]",
  "[aria-label=breadcrumbs]",
  "[hidden]",
  ".breadcrumbs",
  ".theme-doc-breadcrumbs",
  ".theme-doc-version-badge",
  ".theme-doc-version-banner",
  ".theme-doc-toc-mobile",
  ".theme-doc-footer",
  ".theme-edit-this-page",
  ".theme-last-updated",
  ".pagination-nav",
  ".md-content__button",
  ".md-source-file",
  ".md-clipboard",
  ".edit-link",
  ".edit-this-page",
  ".edit-page",
  ".version-switcher",
  ".version-picker",
  ".rst-versions",
  ".rst-footer-buttons",
  ".sphinxsidebar",
  ".related",
  ".prev-next-area",
  ".vp-doc .lang",
  ".linenos",
  ".lineno",
  "[class*=cookie]",
  "[id*=cookie]",
  "[class*=consent]",
  "a.headerlink",
  "a.hash-link",
  "a.header-anchor",
  "a.anchor",
  "a.anchorjs-link",
];

/** Class names of admonitions: MkDocs and Sphinx, Docusaurus, VitePress, Hugo themes. */
export const ADMONITION_SELECTOR =
  ".admonition, .theme-admonition, .alert, .custom-block, .callout, .notices, .hint";

export const ADMONITION_TITLE_SELECTOR =
  ".admonition-title, .custom-block-title, [class*=admonitionHeading], .callout-title";

/** Kinds of admonition the Markdown parser knows, and what other generators call them. */
export const ADMONITION_KINDS: Record<string, string> = {
  note: "note",
  tip: "tip",
  info: "info",
  warning: "warning",
  danger: "danger",
  caution: "caution",
  important: "important",
  success: "success",
  hint: "tip",
  attention: "warning",
  error: "danger",
  seealso: "note",
  abstract: "note",
  example: "note",
  question: "note",
  quote: "note",
  failure: "danger",
  bug: "danger",
  secondary: "secondary",
};
