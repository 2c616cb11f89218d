// Over 300 lines on purpose: one walker over the Markdown/MDX tree, a case per node kind, and its CommonMark fallback.

import { createError } from "@lectern/engine/errors";
import matter from "gray-matter";
import remarkDirective from "remark-directive";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkMdx from "remark-mdx";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { fence, LIST_START } from "./markdown-text.ts";

/**
 * Turns one Markdown/MDX source into plain, searchable blocks: headings (with any explicit
 * `{#id}`), prose, code (with its language), tables, lists and admonitions as text. Import and
 * export lines and JS expressions are dropped; text inside JSX children is kept; a JSX element
 * that renders an imported partial is replaced by the partial's blocks (via `resolvePartial`).
 * Math is parsed as remark-math does on Docusaurus sites and kept as TeX: `$$` blocks become
 * `math` code blocks, inline `$…$` stays in the prose. An `.mdx` page that MDX cannot parse is read
 * as CommonMark instead, with a warning, so it is still indexed.
 */

export type Block =
  | { kind: "heading"; depth: number; text: string; explicitId?: string; line: number }
  | {
      kind: "prose";
      text: string;
      line: number;
      /** A table, one row a line, cells separated by " | ", the header first. */
      table?: true;
    }
  | { kind: "code"; lang: string; code: string; line: number };

export interface ParsedMarkdown {
  frontmatter: Record<string, unknown>;
  blocks: Block[];
  /** Relative specifiers of imported Markdown/MDX files (partials), by the component name. */
  imports: Map<string, string>;
  /** Problems that did not stop the page from being read (an MDX error, read as CommonMark). */
  warnings: ParseWarning[];
}

/** A problem in a page that was still indexed, tied to a place in the source. */
export interface ParseWarning {
  filePath: string;
  /** 1-based, counted from the top of the file (frontmatter included). */
  line: number | undefined;
  reason: string;
  /** `path:line: reason`, as parse errors are shown. */
  message: string;
}

export interface ParseOptions {
  /** Displayed in errors. */
  filePath: string;
  /**
   * `.mdx` parses as MDX, falling back to CommonMark (with a warning) when MDX fails; `.md` parses
   * as CommonMark, as Docusaurus' `format: detect` reads it.
   */
  format: "mdx" | "md";
  /** Returns the blocks of an imported partial, or undefined when it cannot be resolved. */
  resolvePartial?: (specifier: string) => Block[] | undefined;
}

const ADMONITION_TYPES = new Set([
  "note",
  "tip",
  "info",
  "warning",
  "danger",
  "caution",
  "important",
  "success",
  "secondary",
]);

/** A parse problem tied to a place in the source. */
export class MarkdownParseError extends Error {
  constructor(
    readonly filePath: string,
    readonly line: number | undefined,
    readonly reason: string,
    readonly code: "PARSE_ERROR" | "INVALID_FRONTMATTER",
  ) {
    super(`${filePath}${line ? `:${line}` : ""}: ${reason}`);
    this.name = "MarkdownParseError";
  }
}

export function splitFrontmatter(
  source: string,
  filePath: string,
): { frontmatter: Record<string, unknown>; body: string; bodyLineOffset: number } {
  let parsed: matter.GrayMatterFile<string>;
  try {
    // A fresh options object disables gray-matter's cache, which would hide a changed file.
    parsed = matter(source, {});
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    const reason = ((error as { reason?: string }).reason ?? (error as Error).message).split(
      "\n",
    )[0];
    // gray-matter hands the YAML over starting with the newline after the opening ---, so the
    // parser's 0-based line already counts that first line.
    const line = mark?.line === undefined ? undefined : mark.line + 1;
    throw new MarkdownParseError(
      filePath,
      line,
      `invalid frontmatter YAML: ${reason}`,
      "INVALID_FRONTMATTER",
    );
  }
  const data = parsed.data as unknown;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new MarkdownParseError(
      filePath,
      2,
      "frontmatter must be a YAML mapping",
      "INVALID_FRONTMATTER",
    );
  }
  if (expandsBeyond(data, 2 * parsed.matter.length + ALIAS_EXPANSION_ALLOWANCE)) {
    throw new MarkdownParseError(
      filePath,
      2,
      "frontmatter YAML expands to far more than it says (aliases of aliases); refused",
      "INVALID_FRONTMATTER",
    );
  }
  const body = parsed.content;
  const bodyStart = source.endsWith(body) ? source.length - body.length : 0;
  const bodyLineOffset = countNewlines(source, bodyStart);
  return { frontmatter: data as Record<string, unknown>, body, bodyLineOffset };
}

/**
 * YAML aliases let a few hundred bytes stand for billions of values ("billion laughs"): the parser
 * shares one object per anchor, but anything that walks or serialises the frontmatter (the stored
 * metadata, the search text) expands every alias. Without aliases a value costs at least one
 * character of source and a string no more than its source, so the expanded weight (one per value
 * plus the length of every key and string) stays under twice the source's length; this much more
 * is allowed for modest reuse (`reviewer: *author`).
 */
const ALIAS_EXPANSION_ALLOWANCE = 10_000;

/** Whether `root`, with every alias expanded, weighs more than `budget`; stops once it does. */
function expandsBeyond(root: unknown, budget: number): boolean {
  let weight = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    weight += typeof value === "string" ? value.length + 1 : 1;
    if (weight > budget) return true;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === "object" && value !== null && !(value instanceof Date)) {
      for (const [key, item] of Object.entries(value)) {
        weight += key.length;
        pending.push(item);
      }
    }
  }
  return false;
}

export function parseMarkdown(source: string, options: ParseOptions): ParsedMarkdown {
  const { frontmatter, body, bodyLineOffset } = splitFrontmatter(source, options.filePath);
  const { text, explicitIds } = preprocess(body);

  const warnings: ParseWarning[] = [];
  let tree: MdNode;
  try {
    tree = parseTree(text, options.format === "mdx");
  } catch (error) {
    // Plain CommonMark never fails: the page is indexed with what CommonMark makes of it.
    tree = parseTree(text, false);
    const { line, reason } = mdxErrorPlace(error);
    warnings.push(
      warningAt(
        options.filePath,
        line === undefined ? undefined : line + bodyLineOffset,
        `cannot parse MDX: ${reason}; indexed as CommonMark`,
      ),
    );
  }

  if (options.format === "md" || warnings.length > 0) markModuleStatements(tree);
  const imports = collectImports(tree);
  const walker = new BlockWalker(explicitIds, bodyLineOffset, imports, options.resolvePartial);
  walker.walkChildren(tree);
  return { frontmatter, blocks: walker.blocks, imports, warnings };
}

function mdxErrorPlace(error: unknown): { line: number | undefined; reason: string } {
  const place = (error as { place?: { line?: number; start?: { line?: number } } }).place;
  const reason =
    ((error as { reason?: string }).reason ?? (error as Error).message).split("\n")[0] ?? "";
  // Some MDX errors carry their place only in the text, as "(line:column-line:column)".
  const quoted = /\((\d+):\d+(?:-\d+:\d+)?\)/.exec(reason)?.[1];
  return {
    line: place?.line ?? place?.start?.line ?? (quoted ? Number(quoted) : undefined),
    reason: reason.replace(/\s*\(\d+:\d+(?:-\d+:\d+)?\)/, ""),
  };
}

function warningAt(filePath: string, line: number | undefined, reason: string): ParseWarning {
  return { filePath, line, reason, message: `${filePath}${line ? `:${line}` : ""}: ${reason}` };
}

const mdxProcessor = unified()
  .use(remarkParse)
  .use(remarkMdx)
  .use(remarkGfm)
  .use(remarkDirective)
  .use(remarkMath);
const mdProcessor = unified().use(remarkParse).use(remarkGfm).use(remarkDirective).use(remarkMath);
const mdxNoMath = unified().use(remarkParse).use(remarkMdx).use(remarkGfm).use(remarkDirective);
const mdNoMath = unified().use(remarkParse).use(remarkGfm).use(remarkDirective);

/**
 * The page's syntax tree, with math unless the page's dollar signs are no math: a page whose
 * "inline math" opens or closes on a space or holds emphasis marks (`**$HOME** … **$HOME/x**`,
 * `${1} | ${2}` in a table) is read without math, as a site that does not enable it shows it.
 */
function parseTree(text: string, mdx: boolean): MdNode {
  const tree = (mdx ? mdxProcessor : mdProcessor).parse(text) as unknown as MdNode;
  if (!hasFalseMath(tree)) return tree;
  return (mdx ? mdxNoMath : mdNoMath).parse(text) as unknown as MdNode;
}

function hasFalseMath(node: MdNode): boolean {
  if (node.type === "inlineMath") return /^\s|\s$|\*\*|__/.test(node.value ?? "");
  return (node.children ?? []).some(hasFalseMath);
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING_WITH_ID = /^(\s{0,3}#{1,6}\s.*?)\s*\{#([^}\s]+)\}\s*$/;
const LEGACY_ADMONITION_TITLE = /^(\s*:::+)([A-Za-z]+)[ \t]+([^[{\s].*?)\s*$/;

/**
 * Rewrites what MDX cannot parse, keeping line numbers: `## Title {#id}` loses the `{#id}` (kept
 * aside by line), and the legacy admonition title `:::tip Title` becomes `:::tip[Title]`.
 */
function preprocess(body: string): { text: string; explicitIds: Map<number, string> } {
  const explicitIds = new Map<number, string>();
  const lines = body.split("\n");
  let fence: string | undefined;
  for (const [index, line] of lines.entries()) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
      continue;
    }
    if (fence !== undefined) continue;
    const heading = HEADING_WITH_ID.exec(line);
    if (heading?.[1] && heading[2]) {
      explicitIds.set(index + 1, heading[2]);
      lines[index] = heading[1];
      continue;
    }
    const admonition = LEGACY_ADMONITION_TITLE.exec(line);
    if (admonition?.[1] && admonition[2] && admonition[3] && ADMONITION_TYPES.has(admonition[2])) {
      lines[index] = `${admonition[1]}${admonition[2]}[${admonition[3].replace(/[[\]]/g, "\\$&")}]`;
    }
  }
  return { text: lines.join("\n"), explicitIds };
}

interface MdNode {
  type: string;
  children?: MdNode[];
  value?: string;
  depth?: number;
  lang?: string | null;
  name?: string | null;
  alt?: string | null;
  ordered?: boolean | null;
  data?: { directiveLabel?: boolean };
  position?: { start: { line: number } };
}

/**
 * The opening of an ES module statement: `import … from "…"`, `import "…"`, `export const …`.
 * Docusaurus reads `.md` pages as MDX unless a site opts out, so pages written for it put these at
 * the top level of `.md` files too; the site runs them and shows nothing of them.
 */
const MODULE_STATEMENT =
  /^(?:import\s+(?:["'][^"']+["']|[\w$*{},\s]+?\s+from\s+["'][^"']+["'])|export\s+(?:const|let|var|function|class|default|async|\{))/;

/**
 * Top-level paragraphs of a CommonMark-parsed page that are module statements become what MDX
 * makes of them (`mdxjsEsm`): never prose a reader is shown, and partial imports are seen. Every
 * line of an import paragraph must be an import; an export runs to the paragraph's end, as in MDX.
 */
function markModuleStatements(tree: MdNode): void {
  for (const node of tree.children ?? []) {
    if (node.type !== "paragraph") continue;
    const text = inlineText(node).trim();
    const lines = text.split("\n").map((line) => line.trim());
    const isModule = text.startsWith("export")
      ? MODULE_STATEMENT.test(text)
      : lines.every((line) => !line || MODULE_STATEMENT.test(line));
    if (!isModule) continue;
    node.type = "mdxjsEsm";
    node.value = text;
    node.children = [];
  }
}

const IMPORT_LINE = /import\s+([A-Za-z_$][\w$]*)\s+from\s+["']([^"']+\.(?:md|mdx))["']/g;

function collectImports(tree: MdNode): Map<string, string> {
  const imports = new Map<string, string>();
  for (const node of tree.children ?? []) {
    if (node.type !== "mdxjsEsm" || !node.value) continue;
    for (const match of node.value.matchAll(IMPORT_LINE)) {
      if (match[1] && match[2]) imports.set(match[1], match[2]);
    }
  }
  return imports;
}

class BlockWalker {
  readonly blocks: Block[] = [];

  constructor(
    private readonly explicitIds: Map<number, string>,
    private readonly lineOffset: number,
    private readonly imports: Map<string, string>,
    private readonly resolvePartial: ParseOptions["resolvePartial"],
  ) {}

  walkChildren(node: MdNode): void {
    for (const child of node.children ?? []) this.walk(child);
  }

  private line(node: MdNode): number {
    return (node.position?.start.line ?? 1) + this.lineOffset;
  }

  private prose(text: string, node: MdNode, table = false): void {
    const trimmed = text.replace(/[ \t]+\n/g, "\n").trim();
    if (trimmed)
      this.blocks.push({
        kind: "prose",
        text: trimmed,
        line: this.line(node),
        ...(table ? { table: true as const } : {}),
      });
  }

  /** TeX reads like code, not sentences: a `math` code block keeps it out of quoted answers. */
  private math(tex: string, node: MdNode): void {
    if (tex.trim())
      this.blocks.push({ kind: "code", lang: "math", code: tex, line: this.line(node) });
  }

  private walk(node: MdNode): void {
    switch (node.type) {
      case "yaml":
      case "toml":
      case "mdxjsEsm":
      case "mdxFlowExpression":
      case "thematicBreak":
      case "definition":
      case "footnoteDefinition":
        return;
      case "heading": {
        const sourceLine = node.position?.start.line ?? 0;
        const explicitId = this.explicitIds.get(sourceLine);
        const text = inlineText(node).trim();
        this.blocks.push({
          kind: "heading",
          depth: node.depth ?? 2,
          text,
          ...(explicitId ? { explicitId } : {}),
          line: this.line(node),
        });
        return;
      }
      case "paragraph": {
        // `$$…$$` on one line parses as inline math alone in its paragraph: display math all the same.
        const parts = (node.children ?? []).filter(
          (child) => !(child.type === "text" && !child.value?.trim()),
        );
        if (parts.length === 1 && parts[0]?.type === "inlineMath") {
          this.math(parts[0].value ?? "", node);
          return;
        }
        // A figure (a paragraph of images alone) keeps its Markdown form: its alt text is searched,
        // but it is no sentence nor heading of the text around it ("createAsyncThunk: posts
        // pending action" under a screenshot).
        const figures = figuresOf(parts);
        if (figures) {
          this.prose(figures.map((alt) => `![${alt}]()`).join("\n"), node);
          return;
        }
        this.prose(inlineText(node), node);
        return;
      }
      case "code":
        this.blocks.push({
          kind: "code",
          lang: node.lang ?? "",
          code: withoutMagicComments(node.value ?? ""),
          line: this.line(node),
        });
        return;
      case "math":
        this.math(node.value ?? "", node);
        return;
      case "table":
        this.prose(tableText(node), node, true);
        return;
      case "list":
        this.prose(listText(node, 0), node);
        return;
      case "html":
        this.prose(stripTags(node.value ?? ""), node);
        return;
      case "containerDirective":
        this.admonition(node);
        return;
      case "leafDirective":
        this.prose(inlineText(node), node);
        return;
      case "mdxJsxFlowElement": {
        const partial = node.name ? this.imports.get(node.name) : undefined;
        if (partial && this.resolvePartial) {
          const blocks = this.resolvePartial(partial);
          if (blocks) {
            this.blocks.push(...blocks);
            return;
          }
        }
        this.walkChildren(node);
        return;
      }
      default:
        if (node.children) this.walkChildren(node);
        else if (node.value) this.prose(node.value, node);
    }
  }

  private admonition(node: MdNode): void {
    const name = node.name ?? "note";
    const children = node.children ?? [];
    const labelNode = children.find((child) => child.data?.directiveLabel);
    const label = labelNode ? inlineText(labelNode).trim() : "";
    if (!ADMONITION_TYPES.has(name)) {
      this.walkChildren({
        type: "root",
        children: children.filter((child) => child !== labelNode),
      });
      return;
    }
    const title = label || name.charAt(0).toUpperCase() + name.slice(1);
    const start = this.blocks.length;
    for (const child of children) if (child !== labelNode) this.walk(child);
    const first = this.blocks[start];
    // A title before a list or table stands on its own line, as it does before code: "Summary:
    // - Redux apps…" on one line would take the first item out of its list.
    if (first?.kind === "prose" && !first.table && !LIST_START.test(first.text))
      first.text = `${title}: ${first.text}`;
    else this.blocks.splice(start, 0, { kind: "prose", text: `${title}:`, line: this.line(node) });
  }
}

/**
 * The alt texts of a paragraph that holds only images (each alone or inside a link, as a badge
 * is), or null when it holds anything else. Brackets in an alt text are dropped, so each stays
 * one Markdown image.
 */
function figuresOf(parts: MdNode[]): string[] | null {
  const alts: string[] = [];
  for (const part of parts) {
    const images =
      part.type === "link" || part.type === "linkReference"
        ? (part.children ?? []).filter((child) => !(child.type === "text" && !child.value?.trim()))
        : [part];
    if (images.length === 0) return null;
    for (const image of images) {
      if (image.type !== "image" && image.type !== "imageReference") return null;
      alts.push((image.alt ?? "").replace(/[[\]]/g, "").trim());
    }
  }
  return alts.length > 0 ? alts : null;
}

/** Plain text of inline content: code spans and link text kept, JSX text children kept. */
export function inlineText(node: MdNode): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
      return node.value ?? "";
    case "inlineMath":
      return `$${node.value ?? ""}$`;
    case "break":
      return "\n";
    case "image":
    case "imageReference":
      return node.alt ?? "";
    case "html":
      return stripTags(node.value ?? "");
    case "mdxTextExpression":
    case "mdxFlowExpression":
    case "mdxjsEsm":
      return "";
    case "textDirective":
      // `10:30` or `std_msgs:String` can read as a text directive; give the text back.
      return `:${node.name ?? ""}${(node.children ?? []).map(inlineText).join("")}`;
    default:
      return (node.children ?? []).map(inlineText).join(node.type === "tableRow" ? " | " : "");
  }
}

function tableText(node: MdNode): string {
  return (node.children ?? [])
    .map((row) => (row.children ?? []).map((cell) => inlineText(cell).trim()).join(" | "))
    .join("\n");
}

/**
 * Drops Docusaurus's line-highlighting comments (`highlight-next-line`, `highlight-start`,
 * `highlight-end`) standing on lines of their own, in any comment style the site reads them in
 * (`//`, `#`, `--`, `%`, `;;`, `/*`, `{/*`, `<!--`): the site removes them when it renders the
 * block, so a reader never sees them, and an answer quoting the code should not show them either.
 */
const MAGIC_COMMENT =
  /^[ \t]*(?:\/\/|#|--|%|;;|\/\*|\{\/\*|<!--)[ \t]*highlight-(?:next-line|start|end)[ \t]*(?:\*\/\}|\*\/|-->)?[ \t]*$/;

export function withoutMagicComments(code: string): string {
  if (!code.includes("highlight-")) return code;
  return code
    .split("\n")
    .filter((line) => !MAGIC_COMMENT.test(line))
    .join("\n");
}

/**
 * A list as Markdown text, one item a line. What an item holds after its first paragraph (a
 * nested list, a fenced code block, more paragraphs) goes on the lines under it, indented; code
 * keeps its fence, so it is read as code and not as sentences.
 */
function listText(node: MdNode, indent: number): string {
  const lines: string[] = [];
  const inner = " ".repeat(indent + 2);
  for (const [index, item] of (node.children ?? []).entries()) {
    const bullet = node.ordered ? `${index + 1}.` : "-";
    let text = "";
    // Whether the item's text ends in a block (a list or code), after which prose takes a new line.
    let afterBlock = false;
    for (const child of item.children ?? []) {
      if (child.type === "list") {
        text += `\n${listText(child, indent + 2)}`;
        afterBlock = true;
      } else if (child.type === "code") {
        const code = fence(child.lang ?? "", withoutMagicComments(child.value ?? ""));
        text += `\n${code.replace(/^(?=.)/gm, inner)}`;
        afterBlock = true;
      } else {
        const paragraph = inlineText(child).trim();
        if (!paragraph) continue;
        text += afterBlock ? `\n${inner}${paragraph}` : text ? ` ${paragraph}` : paragraph;
        afterBlock = false;
      }
    }
    lines.push(`${" ".repeat(indent)}${bullet} ${text}`);
  }
  return lines.join("\n");
}

function stripTags(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/[ \t]+/g, " ");
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = 0; index < end; index++) if (text.charCodeAt(index) === 10) count++;
  return count;
}

/** A page's text, and the warning when bytes that are not text were dropped from it. */
export interface DecodedText {
  text: string;
  warning: ParseWarning | undefined;
}

/**
 * Decodes a page as UTF-8 (without a byte-order mark, with LF line ends). NUL bytes in otherwise
 * valid text (a stray one from a copy-paste or an editor) are dropped with a warning naming the
 * line of the first, and the rest of the page is ingested. Content that is not UTF-8, or nothing
 * but NUL bytes and blanks, is not text (BINARY_FILE).
 */
export function decodeText(bytes: Uint8Array, filePath: string): DecodedText {
  const hasNul = bytes.includes(0);
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true })
      .decode(bytes)
      .replace(/^\uFEFF/, "")
      .replace(/\r\n?/g, "\n");
  } catch {
    throw createError(
      "BINARY_FILE",
      hasNul
        ? `${filePath}: not a text file (contains NUL bytes and is not valid UTF-8)`
        : `${filePath}: not valid UTF-8 text`,
    );
  }
  if (!hasNul) return { text: decoded, warning: undefined };
  const text = decoded.replaceAll("\u0000", "");
  if (!text.trim()) {
    throw createError("BINARY_FILE", `${filePath}: not a text file (only NUL bytes)`);
  }
  const dropped = decoded.length - text.length;
  const line = countNewlines(decoded, decoded.indexOf("\u0000")) + 1;
  return {
    text,
    warning: warningAt(
      filePath,
      line,
      `dropped ${dropped} NUL byte${dropped === 1 ? "" : "s"} (not text); the rest of the page is indexed`,
    ),
  };
}
