import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { urlPath } from "@lectern/engine/util/url-path";
import type { Context } from "hono";
import { llmsFullTxt, llmsTxt, markdownPath } from "../answer/llms-txt.ts";
import { escapeHtml } from "../ingest/render-html.ts";
import type { DocumentStore, PageSummary } from "../store/document-store.ts";

/**
 * The demo book site: the ingested pages rendered to HTML with a sidebar and the chat widget, so
 * a browser pointed at `lectern serve` shows the reader's experience. API clients are unaffected:
 * `/` answers HTML only to requests that prefer it.
 */

/**
 * The standalone widget script: the copy the build puts in dist/public (what the published
 * package serves), else the widget package's build beside this one (running from the sources).
 */
const WIDGET_SCRIPTS = [
  fileURLToPath(new URL("../public/lectern.js", import.meta.url)),
  fileURLToPath(new URL("../../../widget/dist/lectern.js", import.meta.url)),
];

export function widgetScriptPath(): string | undefined {
  return WIDGET_SCRIPTS.find((file) => existsSync(file));
}

export interface SiteDeps {
  store: DocumentStore;
  /** The book's title (lectern.title()); undefined: "The book". */
  title?: () => Promise<string | undefined>;
  /** What the book is about (the synopsis), for llms.txt. */
  description?: () => string | undefined;
  /** Path of the standalone widget build. */
  widgetScript?: string;
  /** Offer the widget's Share button (the server runs with SHARE_ENABLED). */
  share?: boolean;
  /**
   * The start of the file paths of one docs version in one locale (`?version=`, `?locale=`; the
   * latest version in the default locale when neither is given), for llms.txt; undefined for a
   * book without versions or locales. An unknown version or locale throws INVALID_FILTER.
   */
  slice?: (request: {
    version?: string | undefined;
    locale?: string | undefined;
  }) => string | undefined;
}

export function prefersHtml(context: Context): boolean {
  const accept = context.req.header("accept") ?? "";
  const html = accept.indexOf("text/html");
  const json = accept.indexOf("application/json");
  return html >= 0 && (json < 0 || html < json);
}

function normalizePath(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

function decodePath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

export function createSite(deps: SiteDeps) {
  let pages: { list: PageSummary[]; title: string; loaded: number } | undefined;
  const book = async () => {
    // The book does not change while the server runs; refresh now and then all the same.
    if (!pages || Date.now() - pages.loaded > 60_000) {
      const title = (await deps.title?.()) ?? "The book";
      pages = { list: await deps.store.pages(), title, loaded: Date.now() };
    }
    return pages;
  };
  let script: { body: string; etag: string } | undefined;
  let markdown: { pages: Map<string, string>; loaded: number } | undefined;
  const allMarkdown = async () => {
    if (!markdown || Date.now() - markdown.loaded > 60_000) {
      markdown = { pages: await deps.store.allPageMarkdown(), loaded: Date.now() };
    }
    return markdown.pages;
  };
  /** The book, or the pages of the version and locale the request names. */
  const llmsBook = async (context: Context) => {
    const { list, title } = await book();
    const prefix = deps.slice?.({
      version: context.req.query("version")?.slice(0, 100),
      locale: context.req.query("locale")?.slice(0, 35),
    });
    const pages = prefix ? list.filter((page) => page.filePath.startsWith(prefix)) : list;
    return { title, description: deps.description?.(), pages, markdown: await allMarkdown() };
  };
  const markdownResponse = (context: Context, text: string) =>
    context.body(text, 200, { "content-type": "text/markdown; charset=utf-8" });

  return {
    /** GET /llms.txt: the book's pages with links to their Markdown on this server. */
    async llmsTxt(context: Context): Promise<Response> {
      const origin = new URL(context.req.url).origin;
      const text = llmsTxt(await llmsBook(context), (page) => `${origin}${markdownPath(page.url)}`);
      return context.body(text, 200, { "content-type": "text/plain; charset=utf-8" });
    },

    /** GET /llms-full.txt: every page's Markdown. */
    async llmsFullTxt(context: Context): Promise<Response> {
      const text = llmsFullTxt(await llmsBook(context));
      return context.body(text, 200, { "content-type": "text/plain; charset=utf-8" });
    },

    /** The page whose URL plus `.md` is this path, as Markdown, or undefined. */
    async markdown(context: Context): Promise<Response | undefined> {
      const decoded = decodePath(context.req.path);
      if (decoded === undefined || !decoded.endsWith(".md")) return undefined;
      const { list } = await book();
      const page = list.find((candidate) => markdownPath(candidate.url) === decoded);
      if (!page) return undefined;
      const text = await deps.store.pageMarkdown(page.filePath);
      return markdownResponse(
        context,
        text ??
          `# ${page.title}\n\nThis page has not been converted yet; run lectern ingest again.\n`,
      );
    },

    /** The page at this path, rendered, or undefined. */
    async page(context: Context): Promise<Response | undefined> {
      const decoded = decodePath(context.req.path);
      // Escapes that are not UTF-8 (`/%ff`, `/%%`, overlong forms) name no page.
      if (decoded === undefined) return undefined;
      const { list, title } = await book();
      const path = normalizePath(decoded);
      const page =
        list.find((candidate) => normalizePath(urlPath(candidate.url)) === path) ??
        (path === "/"
          ? (list.find((candidate) => candidate.filePath === "index.md") ?? list[0])
          : undefined);
      if (!page) return undefined;
      const html =
        (await deps.store.pageHtml(page.filePath)) ??
        "<p>This page has not been rendered yet; run lectern ingest again.</p>";
      const origin = new URL(context.req.url).origin;
      const widget = `<script src="/lectern.js" data-api="${escapeHtml(origin)}" data-title="Ask ${escapeHtml(title)}"${deps.share ? ' data-share="true"' : ""} defer></script>`;
      return context.html(pageTemplate(page, html, list, title, widget));
    },

    async widget(context: Context): Promise<Response> {
      if (!script) {
        try {
          const file = deps.widgetScript ?? widgetScriptPath();
          if (file === undefined) throw new Error("the widget is not built");
          const body = await readFile(file, "utf8");
          script = {
            body,
            etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 20)}"`,
          };
        } catch {
          return context.text(
            "// The widget is not built yet: run npm run build -w @lectern/widget\n",
            404,
            {
              "content-type": "text/javascript; charset=utf-8",
            },
          );
        }
      }
      const headers = {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=3600, stale-while-revalidate=86400",
        etag: script.etag,
      };
      if (context.req.header("if-none-match") === script.etag)
        return context.body(null, 304, headers);
      return context.body(script.body, 200, headers);
    },
  };
}

// The page's one style sheet and one script are inline and allowed by hash in the
// Content-Security-Policy (middleware/security-headers.ts): no inline handler, no 'unsafe-inline'.
const SITE_STYLE = `
:root { color-scheme: light; --text: #1c1e21; --muted: #606770; --bg: #fff; --panel: #f5f6f7; --link: #2e6bd1; --code: #f0f2f5; }
html[data-theme="dark"] { color-scheme: dark; --text: #e3e3e3; --muted: #a0a4ab; --bg: #1b1b1d; --panel: #242526; --link: #6ea8ff; --code: #2b2c2f; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.65 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: var(--bg); }
header { display: flex; align-items: center; justify-content: space-between; padding: 0.6rem 1.2rem; border-bottom: 1px solid var(--panel); }
header a { color: var(--text); font-weight: 700; text-decoration: none; }
.layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr); }
nav { padding: 1rem; background: var(--panel); min-height: calc(100vh - 3rem); font-size: 0.92rem; }
nav h2 { font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 1rem 0 0.3rem; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav a { color: var(--text); text-decoration: none; display: block; padding: 0.15rem 0.4rem; border-radius: 4px; }
nav a[aria-current="page"] { background: var(--bg); color: var(--link); font-weight: 600; }
main { padding: 1.5rem 2.5rem 5rem; max-width: 52rem; }
main a { color: var(--link); }
h1 { font-size: 2.1rem; line-height: 1.2; }
h2, h3, h4 { scroll-margin-top: 1rem; }
.anchor { margin-left: 0.4rem; opacity: 0; text-decoration: none; }
h2:hover .anchor, h3:hover .anchor, h4:hover .anchor { opacity: 0.6; }
pre { background: var(--code); padding: 0.9rem; border-radius: 6px; overflow: auto; font-size: 0.88rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
table { border-collapse: collapse; margin: 1rem 0; display: block; max-width: 100%; overflow-x: auto; }
main, article { min-width: 0; overflow-wrap: anywhere; }
pre { max-width: 100%; overflow-wrap: normal; }
img { max-width: 100%; height: auto; }
th, td { border: 1px solid var(--panel); padding: 0.35rem 0.6rem; text-align: left; }
mark { background: #ffe58f; color: #1c1e21; }
.tools { display: flex; align-items: center; gap: 0.8rem; }
header a.to-contents { display: none; font-weight: 500; color: var(--link); }
button.theme { background: none; border: 1px solid var(--muted); color: var(--text); border-radius: 6px; padding: 0.2rem 0.6rem; cursor: pointer; }
@media (max-width: 760px) { .layout { grid-template-columns: minmax(0, 1fr); } nav { min-height: 0; order: 2; } main { padding: 1rem; } header a.to-contents { display: inline; } }
`;

const SITE_SCRIPT = `
(function () {
  var root = document.documentElement;
  var saved = localStorage.getItem("theme");
  if (saved) root.dataset.theme = saved;
  document.addEventListener("click", function (event) {
    if (!(event.target instanceof Element) || !event.target.closest("button.theme")) return;
    var theme = root.dataset.theme === "dark" ? "light" : "dark";
    root.dataset.theme = theme;
    localStorage.setItem("theme", theme);
  });
})();
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** The hashes of the demo pages' inline style and script, for their Content-Security-Policy. */
export const SITE_INLINE_SOURCES = {
  scripts: [sha256(SITE_SCRIPT)],
  styles: [sha256(SITE_STYLE)],
} as const;

/**
 * The book's contents, grouped by category: a page's `_category_` labels, or, in a folder without
 * one, the folder names as Docusaurus labels them ("02-ros2-basics" → "Ros2 basics").
 */
export function sidebar(list: PageSummary[], current: PageSummary | undefined): string {
  const groups = new Map<string, PageSummary[]>();
  for (const page of list) {
    const labels = page.categories.length > 0 ? page.categories : folderLabels(page.filePath);
    const group = labels.join(" › ");
    groups.set(group, [...(groups.get(group) ?? []), page]);
  }
  const link = (page: PageSummary) =>
    `<li><a href="${escapeHtml(urlPath(page.url))}"${page === current ? ' aria-current="page"' : ""}>${escapeHtml(page.title)}</a></li>`;
  const order = (pages: PageSummary[]) =>
    [...pages].sort(
      (left, right) =>
        (left.position ?? 999) - (right.position ?? 999) ||
        left.filePath.localeCompare(right.filePath),
    );
  return [...groups.entries()]
    .map(
      ([group, pages]) =>
        (group ? `<h2>${escapeHtml(group)}</h2>` : "") +
        `<ul>${order(pages).map(link).join("")}</ul>`,
    )
    .join("");
}

function folderLabels(filePath: string): string[] {
  return filePath
    .split("/")
    .slice(0, -1)
    .map((folder) =>
      folder
        .replace(/^\d+[-_.\s]*/, "")
        .replace(/[-_]+/g, " ")
        .trim(),
    )
    .filter((label) => label.length > 0)
    .map((label) => label.charAt(0).toUpperCase() + label.slice(1));
}

/**
 * A page of a static build (`lectern build-static`): the demo site's page, its widget answering
 * from the static book in the reader's browser (the widget and the book under `{base}lectern/`,
 * `base` the path the site is served at: `/`, or `/handbook/` for a project's GitHub Pages).
 */
export function staticPageHtml(
  page: PageSummary,
  body: string,
  list: PageSummary[],
  bookTitle: string,
  base = "/",
): string {
  const widget = `<script src="${escapeHtml(base)}lectern/lectern.js" data-static-book="${escapeHtml(base)}lectern/manifest.json" data-title="Ask ${escapeHtml(bookTitle)}" defer></script>`;
  return pageTemplate(page, body, list, bookTitle, widget, base);
}

function pageTemplate(
  page: PageSummary,
  body: string,
  list: PageSummary[],
  bookTitle: string,
  widget: string,
  /** Where the site is served: its home link. */
  home = "/",
): string {
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · ${escapeHtml(bookTitle)}</title>
<link rel="icon" href="data:,">
<style>${SITE_STYLE}</style>
<script>${SITE_SCRIPT}</script>
</head>
<body>
<header><a href="${escapeHtml(home)}">${escapeHtml(bookTitle)}</a><span class="tools"><a class="to-contents" href="#contents">Contents</a><button class="theme" type="button" aria-label="Toggle dark mode">◐</button></span></header>
<div class="layout">
<nav id="contents" aria-label="Book contents">${sidebar(list, page)}</nav>
<main>
<article>
<h1>${escapeHtml(page.title)}</h1>
${body}
</article>
</main>
</div>
${widget}
</body>
</html>`;
}
