import { isLecternError } from "@lectern/engine/errors";
import type { ChatOutcome } from "@lectern/engine/pipeline/types";
import { plainText, snippetOf } from "@lectern/engine/search/keyword-search";
import type { RetrievalResult, SearchFilters } from "@lectern/engine/search/retriever";
import { urlPath } from "@lectern/engine/util/url-path";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { markdownPath, withSource } from "../answer/llms-txt.ts";
import type { PageSummary } from "../store/document-store.ts";

/**
 * The book as a Model Context Protocol server, for coding agents and other MCP clients: three tools
 * (`search_docs`, `ask_docs`, `get_page`) and every page as a Markdown resource
 * (`lectern://book/<page path>.md`). The same server runs over stdio (`lectern mcp`) and over
 * Streamable HTTP (`POST /mcp`); both give it the book through `McpBook`.
 */

export interface McpAnswer {
  outcome: ChatOutcome;
  sessionId: string;
}

/** What the MCP server reads the book through. */
export interface McpBook {
  title(): Promise<string | undefined>;
  /** The retriever (`Retriever.search`): ranked sections with the decision whether the book covers it. */
  search(
    query: string,
    options: { topK: number; filters?: SearchFilters },
  ): Promise<RetrievalResult>;
  /**
   * One chat turn as `/chat` answers it, in the session when one is given (else a new one), in
   * the docs version named (else the latest) of a versioned book.
   */
  ask(
    question: string,
    sessionId: string | undefined,
    version?: string,
    locale?: string,
  ): Promise<McpAnswer>;
  pages(): Promise<PageSummary[]>;
  pageMarkdown(filePath: string): Promise<string | undefined>;
  /** The longest question accepted (LECTERN_MAX_QUERY_CHARS). */
  maxQueryChars: number;
}

export const RESOURCE_PREFIX = "lectern://book";

const VERSION_DESCRIPTION =
  'The docs version, for a versioned book: its name ("29.7"), "next" or "latest" (the default)';
const LOCALE_DESCRIPTION =
  'The language, for a translated book: a locale such as "fr" or "pt-BR" (default: the book\'s default locale)';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function createMcpServer(book: McpBook, version: string): McpServer {
  const server = new McpServer(
    { name: "lectern", title: "Lectern", version },
    {
      instructions:
        "Tools to read one documentation book: search_docs finds sections, ask_docs answers a question with numbered citations, get_page returns a page as Markdown. Prefer citing the URLs they return.",
    },
  );

  server.registerTool(
    "search_docs",
    {
      title: "Search the docs",
      description:
        "Search the book's sections for a query. Returns the best sections, best first, each with its page title, section heading, URL and a snippet.",
      inputSchema: {
        query: z.string().trim().min(1).max(book.maxQueryChars).describe("What to look for"),
        top_k: z
          .number()
          .int()
          .min(1)
          .max(20)
          .optional()
          .describe("How many sections (1–20, default 5)"),
        filters: z
          .object({
            source_url_prefix: z
              .string()
              .optional()
              .describe("Only sections whose URL or path starts with this, e.g. /docs/ros2"),
            section: z.string().optional().describe("Only sections under this heading"),
            version: z.string().max(100).optional().describe(VERSION_DESCRIPTION),
            locale: z.string().max(35).optional().describe(LOCALE_DESCRIPTION),
          })
          .optional(),
      },
      outputSchema: {
        covered: z.boolean(),
        results: z.array(
          z.object({
            title: z.string(),
            section: z.string().nullable(),
            url: z.string(),
            snippet: z.string(),
            score: z.number(),
          }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, top_k, filters }) =>
      guarded(async () => {
        const found = await book.search(query, {
          topK: top_k ?? 5,
          ...(filters
            ? {
                filters: {
                  sourceUrlPrefix: filters.source_url_prefix,
                  section: filters.section,
                  version: filters.version,
                  locale: filters.locale,
                },
              }
            : {}),
        });
        const terms = new Set(found.terms);
        const results = found.results.map(({ chunk, similarityScore }) => ({
          title: chunk.title,
          section: chunk.headingPath.length > 1 ? chunk.section : null,
          url: chunk.url,
          snippet: snippetOf(plainText(chunk.text), terms).snippet,
          score: Math.round(similarityScore * 1000) / 1000,
        }));
        const covered = found.decision === "answer" && results.length > 0;
        const lines = results.map(
          (result, index) =>
            `${index + 1}. ${result.title}${result.section ? ` › ${result.section}` : ""}\n   ${result.url}\n   ${result.snippet}`,
        );
        const head = covered
          ? `${results.length} section${results.length === 1 ? "" : "s"} for "${query}":`
          : `The book does not appear to cover "${query}"${results.length ? "; the closest sections:" : "."}`;
        return {
          content: [{ type: "text", text: [head, ...lines].join("\n\n") }],
          structuredContent: { covered, results },
        };
      }),
  );

  server.registerTool(
    "ask_docs",
    {
      title: "Ask the docs",
      description:
        "Ask a question about the book. Returns an answer grounded in the book with numbered citations [n] and the cited sections' URLs. Pass the returned session_id to ask a follow-up.",
      inputSchema: {
        question: z.string().trim().min(1).max(book.maxQueryChars),
        session_id: z
          .string()
          .regex(UUID, "session_id must be a UUID v4")
          .optional()
          .describe("The session_id of an earlier answer, for a follow-up question"),
        version: z.string().max(100).optional().describe(VERSION_DESCRIPTION),
        locale: z.string().max(35).optional().describe(LOCALE_DESCRIPTION),
      },
      outputSchema: {
        answer: z.string().nullable(),
        mode: z.string(),
        low_confidence: z.boolean(),
        session_id: z.string(),
        sources: z.array(
          z.object({ n: z.number(), title: z.string(), section: z.string(), url: z.string() }),
        ),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ question, session_id, version, locale }) =>
      guarded(async () => {
        const { outcome, sessionId } = await book.ask(question, session_id, version, locale);
        const sources = outcome.sources.flatMap((source) =>
          source.source_type === "selected_text"
            ? []
            : [
                {
                  n: source.citation_number,
                  title: source.title,
                  section: source.section,
                  url: source.source_url,
                },
              ],
        );
        const answered = outcome.answer !== null && outcome.mode !== "no_results";
        const text = answered
          ? [
              outcome.answer,
              outcome.lowConfidence
                ? "(Low confidence: the best passages only partly match the question.)"
                : "",
              sources.length
                ? `Sources:\n${sources
                    .map(
                      (source) =>
                        `[${source.n}] ${source.title}${source.section === source.title ? "" : ` › ${source.section}`} — ${source.url}`,
                    )
                    .join("\n")}`
                : "",
            ]
              .filter(Boolean)
              .join("\n\n")
          : (outcome.fallbackMessage ?? "The book does not cover this question.");
        return {
          content: [{ type: "text", text }],
          structuredContent: {
            answer: answered ? outcome.answer : null,
            mode: outcome.mode,
            low_confidence: outcome.lowConfidence,
            session_id: sessionId,
            sources,
          },
        };
      }),
  );

  server.registerTool(
    "get_page",
    {
      title: "Get a page",
      description:
        "One page of the book as Markdown, by its URL (a section's URL with #anchor works too), its path (/docs/intro) or its source file path.",
      inputSchema: {
        url_or_path: z.string().trim().min(1).max(2_000),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ url_or_path }) =>
      guarded(async () => {
        const pages = await book.pages();
        const page = findPage(pages, url_or_path);
        if (!page) {
          return errorResult(
            `No page of the book at "${url_or_path}". Use search_docs to find one, or a URL it returned.`,
          );
        }
        const markdown = await book.pageMarkdown(page.filePath);
        if (markdown === undefined) {
          return errorResult(`The page ${page.url} has no Markdown yet: run lectern ingest again.`);
        }
        return { content: [{ type: "text", text: withSource(markdown, page.url) }] };
      }),
  );

  server.registerResource(
    "page",
    new ResourceTemplate(`${RESOURCE_PREFIX}{+path}`, {
      list: async () => ({
        resources: (await book.pages()).map((page) => ({
          uri: resourceUri(page),
          name: page.title,
          ...(page.description ? { description: page.description } : {}),
          mimeType: "text/markdown",
        })),
      }),
    }),
    { title: "A page of the book", mimeType: "text/markdown" },
    async (uri) => {
      const pages = await book.pages();
      const page = pages.find((candidate) => resourceUri(candidate) === uri.href);
      const markdown = page ? await book.pageMarkdown(page.filePath) : undefined;
      if (!page || markdown === undefined) throw new Error(`No page at ${uri.href}.`);
      return {
        contents: [
          { uri: uri.href, mimeType: "text/markdown", text: withSource(markdown, page.url) },
        ],
      };
    },
  );
  return server;
}

/** `lectern://book/docs/ros2/topics.md`: the page's Markdown path under the book. */
export function resourceUri(page: PageSummary): string {
  return `${RESOURCE_PREFIX}${markdownPath(page.url)}`;
}

/**
 * The page a URL, path or file path names: the full URL or its path (with or without `#anchor`,
 * a trailing slash or `.md`), or the source file's path relative to the docs folder.
 */
export function findPage(pages: PageSummary[], urlOrPath: string): PageSummary | undefined {
  const wanted = urlOrPath.trim();
  const byFile = pages.find(
    (page) => page.filePath === wanted || page.filePath === wanted.replace(/^\/+/, ""),
  );
  if (byFile) return byFile;
  const path = normalize(urlPath(wanted).replace(/\.md$/, ""));
  return pages.find((page) => normalize(urlPath(page.url)) === path);
}

function normalize(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {}
  return decoded.replace(/\/+$/, "").replace(/^(?!\/)/, "/") || "/";
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** A Lectern failure (rate limit, timeout, model down) as the tool's error result with its code. */
async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (isLecternError(error)) return errorResult(`error [${error.code}]: ${error.message}`);
    throw error;
  }
}
