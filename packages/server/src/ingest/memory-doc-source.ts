import {
  addToListing,
  completeListing,
  type DocListing,
  type DocSource,
  isSkippedFolder,
  newListing,
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
    const listing = newListing();
    const decoder = new TextDecoder();
    for (const [filePath, bytes] of this.files) {
      const folders = filePath.split("/");
      const name = folders.pop() ?? "";
      if (folders.some(isSkippedFolder)) continue;
      await addToListing(listing, folders.join("/"), name, async () => decoder.decode(bytes));
    }
    return completeListing(listing, this.location);
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
