import path from "node:path";
import { createError, isLecternError } from "@lectern/engine/errors";
import type { DocSource } from "./doc-source.ts";
import {
  type Block,
  decodeText,
  MarkdownParseError,
  type ParseWarning,
  parseMarkdown,
} from "./markdown.ts";

/**
 * The files of one ingest run, each read from the source once: pages, and the partials they
 * import (read before parsing so their text counts in the page's hash, parsed once however many
 * pages use them).
 */
export class SourceCache {
  private readonly texts = new Map<string, Promise<string>>();
  /** Texts already read, for the synchronous partial lookups made while parsing. */
  private readonly settled = new Map<string, string>();
  private readonly blocks = new Map<string, Block[] | undefined>();
  private readonly warnings = new Map<string, ParseWarning[]>();
  /** Files whose NUL bytes were dropped when they were read. */
  private readonly decodeWarnings = new Map<string, ParseWarning>();
  private readonly resolving = new Set<string>();

  constructor(
    private readonly source: DocSource,
    private readonly maxPageBytes = Number.POSITIVE_INFINITY,
  ) {}

  text(filePath: string): Promise<string> {
    let pending = this.texts.get(filePath);
    if (!pending) {
      pending = this.source.read(filePath).then(
        (bytes) => {
          if (bytes.length > this.maxPageBytes)
            throw pageTooLarge(filePath, bytes.length, this.maxPageBytes);
          const { text, warning } = decodeText(bytes, filePath);
          if (warning) this.decodeWarnings.set(filePath, warning);
          this.settled.set(filePath, text);
          return text;
        },
        (error: NodeJS.ErrnoException) => {
          // The source's own refusals (a link outside the docs) carry their message.
          if (isLecternError(error)) throw error;
          throw new MarkdownParseError(
            filePath,
            undefined,
            `cannot read file (${error.code ?? error.message})`,
            "PARSE_ERROR",
          );
        },
      );
      this.texts.set(filePath, pending);
    }
    return pending;
  }

  /**
   * Forgets a page's text once the page is built, so that a run holds no more than the page at
   * hand and the partials (read again should another page import this one).
   */
  release(filePath: string): void {
    this.texts.delete(filePath);
    this.settled.delete(filePath);
    this.decodeWarnings.delete(filePath);
  }

  /** What was wrong with a file's bytes when it was read (NUL bytes dropped), if anything. */
  readWarnings(filePath: string): ParseWarning[] {
    const warning = this.decodeWarnings.get(filePath);
    return warning ? [warning] : [];
  }

  /** Partials a page imports (transitively), read now so their text counts in the page's hash. */
  async partialsOf(
    filePath: string,
    text: string,
    depth = 0,
  ): Promise<{ path: string; text: string }[]> {
    if (depth > 5) return [];
    const found: { path: string; text: string }[] = [];
    for (const match of text.matchAll(
      /^import\s+[A-Za-z_$][\w$]*\s+from\s+["']([^"']+\.mdx?)["']/gm,
    )) {
      const target = this.resolve(filePath, match[1] ?? "");
      if (!target) continue;
      const partialText = await this.text(target).catch(() => "");
      found.push(
        { path: target, text: partialText },
        ...(await this.partialsOf(target, partialText, depth + 1)),
      );
    }
    return found;
  }

  resolve(fromFile: string, specifier: string): string | undefined {
    if (!specifier.startsWith(".")) return undefined;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
    return target.startsWith("..") ? undefined : target;
  }

  /** Parsed blocks of a partial (already read by `partialsOf`), or undefined if unavailable. */
  partialBlocks(fromFile: string, specifier: string): Block[] | undefined {
    const target = this.resolve(fromFile, specifier);
    if (!target || this.resolving.has(target)) return undefined;
    if (this.blocks.has(target)) return this.blocks.get(target);
    const text = this.settled.get(target);
    if (text === undefined) return undefined;
    this.resolving.add(target);
    try {
      const parsed = parseMarkdown(text, {
        filePath: target,
        format: formatOf(target),
        resolvePartial: (nested) => this.partialBlocks(target, nested),
      });
      this.blocks.set(target, parsed.blocks);
      this.warnings.set(target, [...this.readWarnings(target), ...parsed.warnings]);
      return parsed.blocks;
    } finally {
      this.resolving.delete(target);
    }
  }

  /** Warnings of the partials parsed so far, each partial once however many pages use it. */
  partialWarnings(): ParseWarning[] {
    return [...this.warnings.values()].flat();
  }
}

export function formatOf(filePath: string): "md" | "mdx" {
  return filePath.toLowerCase().endsWith(".mdx") ? "mdx" : "md";
}

function pageTooLarge(filePath: string, size: number, limit: number) {
  const megabytes = (bytes: number) =>
    bytes >= 1024 * 1024
      ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
      : `${Math.ceil(bytes / 1024)} KiB`;
  return createError(
    "PAGE_TOO_LARGE",
    `${filePath}: skipped, ${megabytes(size)} is more than the ${megabytes(limit)} a page may have (ingest.maxPageBytes, LECTERN_MAX_PAGE_BYTES); split the page or raise the limit.`,
    { details: { size, limit } },
  );
}
