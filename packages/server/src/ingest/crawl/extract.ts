// Over 300 lines on purpose: one pass from a page's HTML to its Markdown, a step per kind of content.
/**
 * The content of one documentation page as Markdown: the page's main article (found by the
 * layouts of the common site generators, else by where its text is), with headings carrying their
 * real anchors as `{#id}`, code with its language, tables, lists and admonitions as `:::type`
 * directives, so that the page goes through the same Markdown pipeline as a docs folder.
 * Navigation, footers, "edit this page", breadcrumbs and heading permalinks are dropped.
 */
import type { Element, ElementContent, Root as HastRoot, Parents } from "hast";
import { select, selectAll } from "hast-util-select";
import { defaultHandlers, type Handle, type State, toMdast } from "hast-util-to-mdast";
import { toString as hastText } from "hast-util-to-string";
import type { ContainerDirective } from "mdast-util-directive";
import { directiveToMarkdown } from "mdast-util-directive";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import rehypeParse from "rehype-parse";
import { unified } from "unified";
import { stringify as stringifyYaml } from "yaml";
import {
  ADMONITION_KINDS,
  ADMONITION_SELECTOR,
  ADMONITION_TITLE_SELECTOR,
  LISTING_PAGE_SELECTORS,
  MAIN_SELECTORS,
  NOISE_SELECTORS,
} from "./layouts.ts";

export interface ExtractedPage {
  /** The page's `<h1>`, else its `<title>`, else "". */
  title: string;
  /** Front matter (the title) and the main content as Markdown. */
  markdown: string;
  /** Absolute URLs of the page's links (without fragments), in document order. */
  links: string[];
  /**
   * `<meta name="robots" content="noindex">`: the site asks not to index this page; or the page
   * only lists others (a tag page, a category's generated index: see `isListingPage`).
   */
  noindex: boolean;
}

/** The page's title, content and links, from its HTML and the URL it was fetched from. */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const tree = unified().use(rehypeParse).parse(html) as HastRoot;
  const baseUrl = baseOf(tree, pageUrl);
  const links = linksOf(tree, baseUrl);
  const noindex =
    selectAll("meta[name=robots]", tree).some((meta) =>
      /\bnoindex\b/i.test(String(meta.properties.content ?? "")),
    ) || isListingPage(tree);
  const main = mainContent(tree);
  const titleElement = select("h1", main) ?? select("h1", tree);
  const title = cleanText(
    titleElement ? headingText(titleElement) : hastText(select("title", tree) ?? main),
  );
  markHeadingIds(main);
  markCodeLanguages(main, []);
  markMath(main);
  const content = withoutNoise(main);
  markAdmonitions(content);
  const markdown = contentMarkdown(content);
  const fields = { title, ...authorMeta(tree) };
  const frontmatter = title ? `---\n${stringifyYaml(fields)}---\n\n` : "";
  return { title, markdown: `${frontmatter}${markdown}`, links, noindex };
}

/**
 * A generator's page of links to other pages: Docusaurus's tag pages and blog lists, and the
 * generated index of a docs category (a doc page, by its `<html>` class, without a doc's
 * `.theme-doc-markdown` article: only the cards of the category's pages).
 */
function isListingPage(tree: HastRoot): boolean {
  if (LISTING_PAGE_SELECTORS.some((selector) => select(selector, tree))) return true;
  return Boolean(select("html.docs-doc-page", tree)) && !select(".theme-doc-markdown", tree);
}

/**
 * What the author wrote for search engines (`<meta name="description">`, `<meta name="keywords">`),
 * as the front matter fields a Markdown page would carry them in, so that they weigh the same.
 */
function authorMeta(tree: HastRoot): { description?: string; keywords?: string } {
  const meta = (name: string) => {
    const content = select(`meta[name=${name}]`, tree)?.properties.content;
    return typeof content === "string" && content.trim() ? cleanText(content) : undefined;
  };
  const description = meta("description");
  const keywords = meta("keywords");
  return { ...(description ? { description } : {}), ...(keywords ? { keywords } : {}) };
}

function baseOf(tree: HastRoot, pageUrl: string): string {
  const href = select("base[href]", tree)?.properties.href;
  if (typeof href !== "string") return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

function linksOf(tree: HastRoot, baseUrl: string): string[] {
  const links: string[] = [];
  for (const anchor of selectAll("a[href]", tree)) {
    try {
      const url = new URL(String(anchor.properties.href), baseUrl);
      url.hash = "";
      if (url.protocol === "http:" || url.protocol === "https:") links.push(url.href);
    } catch {
      // Not a URL: nothing to follow.
    }
  }
  return links;
}

/** The first element a generator's layout names, else the block holding most of the text. */
export function mainContent(tree: HastRoot): Element {
  for (const selector of MAIN_SELECTORS) {
    const found = select(selector, tree);
    if (found && hastText(found).trim()) return found;
  }
  const body = select("body", tree) ?? {
    type: "element",
    tagName: "body",
    properties: {},
    children: tree.children as ElementContent[],
  };
  return densestBlock(body);
}

/**
 * Readability's idea in short: the block whose own paragraphs, lists, tables and code hold the
 * most text, without navigation and footers in it.
 */
function densestBlock(body: Element): Element {
  let best = body;
  let bestScore = 0;
  for (const block of selectAll("div, section", withoutNoise(body))) {
    let score = 0;
    for (const child of block.children) {
      if (
        child.type === "element" &&
        /^(p|pre|ul|ol|table|h[1-6]|dl|blockquote)$/.test(child.tagName)
      )
        score += hastText(child).length;
    }
    if (score > bestScore) {
      best = block;
      bestScore = score;
    }
  }
  return best;
}

/** Heading text without its permalink ("¶", "#"). */
function headingText(heading: Element): string {
  return hastText(withoutNoise(heading));
}

function cleanText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Gives each heading the anchor the page really has: its own `id`, else its permalink's target,
 * else the id of the section it opens (Sphinx puts ids on sections). Kept in `data-anchor`.
 */
function markHeadingIds(root: Element): void {
  visitElements(root, [], (element, ancestors) => {
    if (!/^h[1-6]$/.test(element.tagName)) return;
    const own = element.properties.id;
    const permalink = selectAll("a[href^='#']", element)
      .map((anchor) => String(anchor.properties.href).slice(1))
      .find(Boolean);
    const parent = ancestors.at(-1);
    const firstHeading = parent?.children.find(
      (child) => child.type === "element" && /^h[1-6]$/.test(child.tagName),
    );
    const sectionId =
      parent && firstHeading === element && parent !== root ? parent.properties.id : undefined;
    const anchor = own ?? (permalink ? decodeURIComponent(permalink) : undefined) ?? sectionId;
    if (typeof anchor === "string" && anchor && !anchor.includes("}")) {
      element.properties.dataAnchor = anchor;
    }
  });
}

/** The language of each code block, from `language-x`, `lang-x` or `highlight-x` on it or around it. */
function markCodeLanguages(element: Element, ancestors: Element[]): void {
  visitElements(element, ancestors, (node, around) => {
    if (node.tagName !== "pre") return;
    const code = node.children.find(
      (child): child is Element => child.type === "element" && child.tagName === "code",
    );
    for (const candidate of [code, node, ...around.slice(-3).reverse()]) {
      const lang = languageOf(candidate);
      if (lang) {
        node.properties.dataLang = lang;
        return;
      }
    }
  });
}

/**
 * KaTeX renders math twice, as MathML with the TeX in an annotation and as styled spans for the
 * eye: the TeX is kept (display math as a `math` code block, as the Markdown parser keeps `$$`).
 */
function markMath(root: Element): void {
  for (const math of selectAll(".katex", root)) {
    const tex = select("annotation[encoding='application/x-tex']", math);
    if (!tex) continue;
    const text = hastText(tex).trim();
    math.tagName = "span";
    math.properties = {};
    math.children = [{ type: "text", value: text }];
  }
  for (const display of selectAll(".katex-display", root)) {
    display.tagName = "pre";
    display.properties = { dataLang: "math" };
    display.children = [{ type: "text", value: hastText(display).trim() }];
  }
}

const LANGUAGE_CLASS = /^(?:language|lang|highlight)-([\w+#.-]+)$/;

function languageOf(element: Element | undefined): string | undefined {
  const classes = element?.properties.className;
  if (!Array.isArray(classes)) return undefined;
  for (const name of classes) {
    const lang = LANGUAGE_CLASS.exec(String(name))?.[1];
    if (lang && lang !== "default" && lang !== "none" && lang !== "text") return lang;
  }
  return undefined;
}

function visitElements(
  element: Element,
  ancestors: Element[],
  visit: (element: Element, ancestors: Element[]) => void,
): void {
  visit(element, ancestors);
  const inner = [...ancestors, element];
  for (const child of element.children) {
    if (child.type === "element") visitElements(child, inner, visit);
  }
}

/** A copy of `element` without the parts that are not content (NOISE_SELECTORS). */
function withoutNoise(element: Element): Element {
  const noise = new Set<Parents | ElementContent>(selectAll(NOISE_SELECTORS.join(", "), element));
  const copy = (node: Element): Element => ({
    ...node,
    properties: { ...node.properties },
    children: node.children
      .filter((child) => !noise.has(child))
      .map((child) => (child.type === "element" ? copy(child) : child)),
  });
  return copy(element);
}

/** Rewrites each admonition as an `admonition` element with its kind and title, for the handler. */
function markAdmonitions(root: Element): void {
  for (const box of selectAll(ADMONITION_SELECTOR, root)) {
    if (box.tagName === "a" || box.tagName === "span") continue;
    const titleElement = select(ADMONITION_TITLE_SELECTOR, box);
    const classes = (Array.isArray(box.properties.className) ? box.properties.className : []).map(
      (name) => String(name).replace(/^(theme-admonition|alert)-+/, ""),
    );
    const kind = classes.map((name) => ADMONITION_KINDS[name]).find(Boolean) ?? "note";
    const title = titleElement ? cleanText(hastText(titleElement)) : "";
    const body = titleElement ? withoutElement(box, titleElement) : box;
    box.tagName = "admonition";
    box.properties = { kind, title };
    box.children = body.children;
  }
}

function withoutElement(element: Element, removed: Element): Element {
  return {
    ...element,
    children: element.children
      .filter((child) => child !== removed)
      .map((child) => (child.type === "element" ? withoutElement(child, removed) : child)),
  };
}

const headingHandle: Handle = (state, node) => {
  const heading = defaultHandlers.h2(state, node);
  const anchor = node.properties.dataAnchor;
  if (
    heading &&
    !Array.isArray(heading) &&
    heading.type === "heading" &&
    typeof anchor === "string"
  ) {
    heading.children.push({ type: "text", value: ` {#${anchor}}` });
  }
  return heading;
};

const preHandle: Handle = (state, node) => {
  const code = defaultHandlers.pre(state, node);
  const lang = node.properties.dataLang;
  if (code && !Array.isArray(code) && code.type === "code" && typeof lang === "string") {
    code.lang = lang;
  }
  return code;
};

function admonitionHandle(state: State, node: Element): ContainerDirective {
  const title = String(node.properties.title ?? "");
  const label = title
    ? [
        {
          type: "paragraph" as const,
          data: { directiveLabel: true },
          children: [{ type: "text" as const, value: title }],
        },
      ]
    : [];
  return {
    type: "containerDirective",
    name: String(node.properties.kind ?? "note"),
    attributes: {},
    children: [...label, ...state.toFlow(state.all(node))] as ContainerDirective["children"],
  };
}

function contentMarkdown(content: Element): string {
  const headings = Object.fromEntries(
    ["h1", "h2", "h3", "h4", "h5", "h6"].map((tag) => [tag, headingHandle]),
  );
  const mdast = toMdast(content, {
    handlers: { ...headings, pre: preHandle, admonition: admonitionHandle as Handle },
  });
  return toMarkdown(mdast, {
    extensions: [gfmToMarkdown(), directiveToMarkdown()],
    fences: true,
    bullet: "-",
  });
}
