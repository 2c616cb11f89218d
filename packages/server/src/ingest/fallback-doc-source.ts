import type { DocListing, DocSource } from "./doc-source.ts";

/**
 * A translation over the pages it translates: the translated files, and every page of the
 * original that has no translation (under `prefix` of the original's paths), read from the
 * original. Docusaurus builds a locale the same way, so every page has a URL in every locale.
 */
export class FallbackDocSource implements DocSource {
  readonly location: string;

  constructor(
    /** Undefined for a locale with no translation of these pages. */
    private readonly translated: DocSource | undefined,
    private readonly original: DocSource,
    /** Where the translated pages' originals are among the original's paths ("docs/"). */
    private readonly prefix: string,
  ) {
    this.location = translated?.location ?? original.location;
  }

  async list(): Promise<DocListing> {
    const own = await this.translated?.list().catch((error: { code?: string }) => {
      // A translation folder without pages: all its pages are the original's.
      if (error.code === "DOCS_DIR_EMPTY") return undefined;
      throw error;
    });
    const original = await this.original.list();
    const files = new Set(own?.markdownFiles ?? []);
    const categoryLabels = new Map(own?.categoryLabels ?? []);
    for (const file of original.markdownFiles) {
      if (file.startsWith(this.prefix)) files.add(file.slice(this.prefix.length));
    }
    for (const [folder, label] of original.categoryLabels) {
      if (!folder.startsWith(this.prefix)) continue;
      const inside = folder.slice(this.prefix.length);
      if (inside !== "" && !categoryLabels.has(inside)) categoryLabels.set(inside, label);
    }
    return {
      markdownFiles: [...files].sort(),
      categoryLabels,
      problems: own?.problems ?? [],
    };
  }

  async read(filePath: string): Promise<Uint8Array> {
    if (!this.translated) return this.original.read(`${this.prefix}${filePath}`);
    try {
      return await this.translated.read(filePath);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
      return this.original.read(`${this.prefix}${filePath}`);
    }
  }
}
