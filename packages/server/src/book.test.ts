import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderTitle } from "./book.ts";

/** The title of a book whose pages name none: never "(untitled)" or "The book". */

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "lectern-book-title-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folder(relative: string, files: Record<string, string> = {}): Promise<string> {
  const directory = path.join(root, relative);
  await mkdir(directory, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await writeFile(path.join(directory, name), text);
  }
  return directory;
}

describe("folderTitle", () => {
  it("takes the title of the Docusaurus site the docs belong to", async () => {
    await folder("shop", {
      "docusaurus.config.ts": [
        'import type { Config } from "@docusaurus/types";',
        "const config: Config = {",
        "  title: 'Corner Shop',",
        '  tagline: "Opening hours and prices",',
        '  themeConfig: { navbar: { title: "Shop" } },',
        "};",
        "export default config;",
      ].join("\n"),
    });
    expect(await folderTitle(await folder("shop/docs"))).toBe("Corner Shop");
  });

  it("falls back to the folder's name, its parent's for a generic one", async () => {
    expect(await folderTitle(await folder("pantry"))).toBe("pantry");
    expect(await folderTitle(await folder("garden-notes/docs"))).toBe("garden-notes");
  });

  it("uses the folder's name when the site's title is not a plain string", async () => {
    await folder("computed", {
      "docusaurus.config.js": "module.exports = { title: process.env.SITE_TITLE };\n",
    });
    expect(await folderTitle(await folder("computed/docs"))).toBe("computed");
  });
});
