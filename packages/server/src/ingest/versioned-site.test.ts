import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { versionedRoute } from "./routes.ts";
import { docsPathIn, localeRoutes, readVersionedSite, versionRoutes } from "./versioned-site.ts";

let root: string;

async function write(files: Record<string, string>) {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "lectern-versioned-"));
});
afterEach(async () => rm(root, { recursive: true, force: true }));

describe("docsPathIn", () => {
  it.each([
    ["module.exports = { presets: [['classic', { docs: { path: '../docs' } }]] };", "../docs"],
    [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config's template literal, as text
      "docs: {\n  editUrl: ({locale}) => `x/${locale}`,\n  sidebarPath: require.resolve('./s.js'),\n  path: \"content\",\n}",
      "content",
    ],
    ["docs: { sidebarPath: path.resolve(__dirname, 'sidebars.js') }, path: 'other'", undefined],
    ["docs: { path: path.resolve(__dirname, '../docs') }", undefined],
    ["docs: { blog: { path: 'blog' } }", undefined],
    ["export default { title: 'No docs options' };", undefined],
  ])("reads the docs plugin's path from %j", (config, expected) => {
    expect(docsPathIn(config)).toBe(expected);
  });

  it("is the current docs folder of a site whose config names it", async () => {
    await write({
      "site/versions.json": '["1.0"]',
      "site/docusaurus.config.mjs":
        "export default { presets: [['classic', { docs: { path: '../content' } }]] };",
      "content/intro.md": "# Intro",
      "site/versioned_docs/version-1.0/intro.md": "# Intro",
    });
    const site = await readVersionedSite(path.join(root, "site"));
    expect((await site.source.list()).markdownFiles).toContain("content/intro.md");
  });
});

describe("readVersionedSite", () => {
  it("mounts the current docs and each version under its folder, with Docusaurus's URL segments", async () => {
    await write({
      "site/versions.json": '["2.0", "1.0"]',
      "docs/intro.md": "# Intro",
      "docs/guide/_category_.json": '{"label": "Guides"}',
      "docs/guide/setup.md": "# Setup",
      "site/versioned_docs/version-2.0/intro.md": "# Intro",
      "site/versioned_docs/version-1.0/intro.md": "# Intro",
    });
    const site = await readVersionedSite(path.join(root, "site"), { docsPath: "../docs" });
    expect(site.versions).toEqual([
      { name: "current", label: "Next", urlSegment: "next", filePrefix: "docs/", latest: false },
      {
        name: "2.0",
        label: "2.0",
        urlSegment: "",
        filePrefix: "versioned_docs/version-2.0/",
        latest: true,
      },
      {
        name: "1.0",
        label: "1.0",
        urlSegment: "1.0",
        filePrefix: "versioned_docs/version-1.0/",
        latest: false,
      },
    ]);
    const listing = await site.source.list();
    expect(listing.markdownFiles).toEqual([
      "docs/guide/setup.md",
      "docs/intro.md",
      "versioned_docs/version-1.0/intro.md",
      "versioned_docs/version-2.0/intro.md",
    ]);
    expect(listing.categoryLabels.get("docs/guide")).toBe("Guides");
    expect(new TextDecoder().decode(await site.source.read("docs/guide/setup.md"))).toBe("# Setup");
  });

  it("reads a site without versions.json as its docs alone, served without a segment", async () => {
    await write({ "docs/intro.md": "# Intro" });
    const site = await readVersionedSite(root);
    expect(
      site.versions.map((version) => [version.name, version.urlSegment, version.latest]),
    ).toEqual([["current", "", true]]);
  });

  it("reads each i18n locale's translations, a page without one falling back to the default locale's", async () => {
    await write({
      "versions.json": '["1.0"]',
      "docs/intro.md": "# Intro",
      "docs/setup.md": "# Setup",
      "versioned_docs/version-1.0/intro.md": "# Intro 1.0",
      "i18n/fr/docusaurus-plugin-content-docs/current/intro.md": "# Introduction",
      "i18n/ja/docusaurus-plugin-content-docs/version-1.0/intro.md": "# はじめに",
      "i18n/de/code.json": "{}",
    });
    const site = await readVersionedSite(root);
    expect(site.locales).toEqual([
      { name: "en", urlSegment: "", filePrefix: "", default: true },
      { name: "fr", urlSegment: "fr", filePrefix: "i18n/fr/", default: false },
      { name: "ja", urlSegment: "ja", filePrefix: "i18n/ja/", default: false },
    ]);
    const listing = await site.source.list();
    expect(listing.markdownFiles).toEqual([
      "docs/intro.md",
      "docs/setup.md",
      "i18n/fr/docs/intro.md",
      "i18n/fr/docs/setup.md",
      "i18n/fr/versioned_docs/version-1.0/intro.md",
      "i18n/ja/docs/intro.md",
      "i18n/ja/docs/setup.md",
      "i18n/ja/versioned_docs/version-1.0/intro.md",
      "versioned_docs/version-1.0/intro.md",
    ]);
    const read = async (file: string) => new TextDecoder().decode(await site.source.read(file));
    expect(await read("i18n/fr/docs/intro.md")).toBe("# Introduction");
    expect(await read("i18n/fr/docs/setup.md")).toBe("# Setup");
    expect(await read("i18n/fr/versioned_docs/version-1.0/intro.md")).toBe("# Intro 1.0");
    expect(await read("i18n/ja/versioned_docs/version-1.0/intro.md")).toBe("# はじめに");
    expect(await read("docs/intro.md")).toBe("# Intro");
  });

  it("reads only the locales named, the default locale named as given", async () => {
    await write({
      "docs/intro.md": "# Intro",
      "i18n/fr/docusaurus-plugin-content-docs/current/intro.md": "# Introduction",
      "i18n/ja/docusaurus-plugin-content-docs/current/intro.md": "# はじめに",
    });
    const site = await readVersionedSite(root, { locales: ["fr"], defaultLocale: "en-GB" });
    expect(site.locales?.map((locale) => [locale.name, locale.default])).toEqual([
      ["en-GB", true],
      ["fr", false],
    ]);
    expect((await readVersionedSite(path.join(root))).locales).toHaveLength(3);
  });

  it("refuses a versions.json that is not a list of names", async () => {
    await write({ "versions.json": '{"latest": "1.0"}', "docs/intro.md": "# Intro" });
    await expect(readVersionedSite(root)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});

describe("versionedRoute", () => {
  const versions = versionRoutes([
    { name: "current", label: "Next", urlSegment: "next", filePrefix: "docs/", latest: false },
    {
      name: "2.0",
      label: "2.0",
      urlSegment: "",
      filePrefix: "versioned_docs/version-2.0/",
      latest: true,
    },
  ]);
  const options = { baseUrl: "https://parcel.example", routeBasePath: "/docs", versions };

  it("routes a page inside its version's folder, under the version's segment", () => {
    expect(versionedRoute("docs/guide/setup.md", options)).toEqual({
      relativePath: "guide/setup.md",
      route: { baseUrl: "https://parcel.example", routeBasePath: "/docs/next" },
    });
    expect(versionedRoute("versioned_docs/version-2.0/intro.md", options)).toEqual({
      relativePath: "intro.md",
      route: { baseUrl: "https://parcel.example", routeBasePath: "/docs/" },
    });
  });

  it("routes a translated page under its locale's segment after the baseUrl", () => {
    const locales = localeRoutes([
      { name: "en", urlSegment: "", filePrefix: "", default: true },
      { name: "fr", urlSegment: "fr", filePrefix: "i18n/fr/", default: false },
    ]);
    expect(versionedRoute("i18n/fr/docs/guide/setup.md", { ...options, locales })).toEqual({
      relativePath: "guide/setup.md",
      route: { baseUrl: "https://parcel.example/fr", routeBasePath: "/docs/next" },
    });
    expect(versionedRoute("docs/guide/setup.md", { ...options, locales }).route.baseUrl).toBe(
      "https://parcel.example",
    );
  });

  it("leaves a book without versions as it is", () => {
    const plain = { baseUrl: "", routeBasePath: "/docs" };
    expect(versionedRoute("guide/setup.md", plain)).toEqual({
      relativePath: "guide/setup.md",
      route: plain,
    });
  });
});
