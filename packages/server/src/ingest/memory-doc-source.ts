import {
  CATEGORY_FILE,
  categoryLabelOf,
  categoryProblem,
  type DocListing,
  type DocSource,
  emptySourceError,
  IGNORED_DIRECTORIES,
  MARKDOWN_FILE,
} from "./doc-source.ts";

/**
 * A book held in memory: POSIX paths relative to the book's root → file contents. Listed by the
 * same rules as a folder (hidden and generated folders skipped, `_category_` files read), so the
 * same files give the same pages and chunks. For books fetched from elsewhere, and for tests.
 */
export class MemoryDocSource implements DocSource {
  private readonly files: Map<string, Uint8Array>;

  constructor(
    files: Record<string, string | Uint8Array>,
    readonly location = "memory",
  ) {
    const encoder = new TextEncoder();
    this.files = new Map(
      Object.entries(files).map(([filePath, content]) => [
        filePath,
        typeof content === "string" ? encoder.encode(content) : content,
      ]),
    );
  }

  async list(): Promise<DocListing> {
    const listing: DocListing = { markdownFiles: [], categoryLabels: new Map(), problems: [] };
    const decoder = new TextDecoder();
    for (const [filePath, bytes] of this.files) {
      const segments = filePath.split("/");
      const name = segments.pop() ?? "";
      const hidden = [...segments, name].some((segment) => segment.startsWith("."));
      if (hidden || segments.some((segment) => IGNORED_DIRECTORIES.has(segment))) continue;
      if (MARKDOWN_FILE.test(name)) {
        listing.markdownFiles.push(filePath);
      } else if (CATEGORY_FILE.test(name)) {
        try {
          const label = categoryLabelOf(name, decoder.decode(bytes));
          if (label) listing.categoryLabels.set(segments.join("/"), label);
        } catch (error) {
          listing.problems.push(categoryProblem(filePath, error));
        }
      }
    }
    listing.markdownFiles.sort();
    if (listing.markdownFiles.length === 0) throw emptySourceError(this.location);
    return listing;
  }

  async read(filePath: string): Promise<Uint8Array> {
    const bytes = this.files.get(filePath);
    if (bytes === undefined) {
      // Reported like a missing file on disk: "cannot read file (ENOENT)".
      throw Object.assign(new Error(`ENOENT: no such file: ${filePath}`), { code: "ENOENT" });
    }
    return bytes;
  }
}
