import { type DocListing, type DocSource, listingOf } from "./doc-source.ts";

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

  list(): Promise<DocListing> {
    const decoder = new TextDecoder();
    const files = [...this.files].map(([path, bytes]) => ({
      path,
      readText: async () => decoder.decode(bytes),
    }));
    return listingOf(files, this.location);
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
