import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildIngestCommand,
  docsLocationFromConfig,
  findDocsLocation,
  runIngest,
} from "./ingest.js";
import { validateOptions } from "./options.js";
import type { DocsLocation, SiteConfig } from "./types.js";

const site = (extra: Partial<SiteConfig> = {}): SiteConfig => ({
  url: "https://book.example.com",
  baseUrl: "/",
  ...extra,
});

function ingestOptions(ingest: Record<string, unknown> = {}) {
  return validateOptions({ options: { apiUrl: "/api", ingest: { enabled: true, ...ingest } } })
    .ingest;
}

describe("docsLocationFromConfig", () => {
  it.each([
    ["classic", undefined],
    ["@docusaurus/preset-classic", {}],
    ["/site/node_modules/@docusaurus/preset-classic/lib/index.js", { blog: false }],
  ])("takes Docusaurus' defaults from preset %s without docs options", (name, options) => {
    const presets = options === undefined ? [name] : [[name, options] as [string, unknown]];
    expect(docsLocationFromConfig(site({ presets }))).toEqual({
      path: "docs",
      routeBasePath: "docs",
    });
  });

  it("reads path and routeBasePath of the classic preset's docs", () => {
    const presets: SiteConfig["presets"] = [
      ["classic", { docs: { path: "book", routeBasePath: "/" }, blog: false }],
    ];
    expect(docsLocationFromConfig(site({ presets }))).toEqual({ path: "book", routeBasePath: "/" });
  });

  it("skips a preset whose docs are off and finds a docs plugin among the plugins", () => {
    const config = site({
      presets: [false, ["classic", { docs: false }]],
      plugins: [
        () => ({ name: "inline" }),
        ["@docusaurus/plugin-content-docs", { id: "api", path: "api", routeBasePath: "api" }],
        ["content-docs", { path: "guide", routeBasePath: "guide" }],
      ],
    });
    // The default instance (no id) wins over the first one.
    expect(docsLocationFromConfig(config)).toEqual({ path: "guide", routeBasePath: "guide" });
  });

  it("is null for a site without docs", () => {
    expect(docsLocationFromConfig(site())).toBeNull();
    expect(docsLocationFromConfig(site({ presets: [["classic", { docs: false }]] }))).toBeNull();
    expect(
      docsLocationFromConfig(site({ plugins: ["@docusaurus/plugin-content-blog"] })),
    ).toBeNull();
  });
});

describe("findDocsLocation", () => {
  it("prefers the options of the docs plugin Docusaurus loaded", () => {
    const config = site({ presets: [["classic", { docs: { routeBasePath: "from-config" } }]] });
    const plugins = [
      { name: "docusaurus-plugin-content-blog", options: { id: "default", path: "blog" } },
      {
        name: "docusaurus-plugin-content-docs",
        options: { id: "default", path: "docs", routeBasePath: "handbook" },
      },
    ];
    expect(findDocsLocation({ siteConfig: config, plugins })).toEqual({
      path: "docs",
      routeBasePath: "handbook",
    });
    expect(findDocsLocation({ siteConfig: config, plugins: [] })).toEqual({
      path: "docs",
      routeBasePath: "from-config",
    });
  });
});

describe("buildIngestCommand", () => {
  const docs: DocsLocation = { path: "docs", routeBasePath: "docs" };

  it("ingests a versioned site whole: --site with its docs path, every version at its URLs", () => {
    const command = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site(),
      ingest: ingestOptions(),
      docs: { path: "../docs", routeBasePath: "docs" },
      versioned: true,
    });
    expect(command.args.slice(2, 7)).toEqual([
      "ingest",
      "--site",
      "/site",
      "--docs-path",
      "../docs",
    ]);
    expect(command.args).not.toContain("--docs");
  });

  it("ingests a translated site whole, with its locales from the i18n config", () => {
    const command = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site({ i18n: { defaultLocale: "en", locales: ["en", "fr", "ja"] } }),
      ingest: ingestOptions(),
      docs,
    });
    expect(command.args.slice(2, 11)).toEqual([
      "ingest",
      "--site",
      "/site",
      "--docs-path",
      "docs",
      "--locales",
      "fr,ja",
      "--default-locale",
      "en",
    ]);
    const single = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site({ i18n: { defaultLocale: "en", locales: ["en"] } }),
      ingest: ingestOptions(),
      docs,
    });
    expect(single.args).toContain("--docs");
    expect(single.args).not.toContain("--locales");
  });

  it("ingests <siteDir>/docs with the site's URL, baseUrl and routeBasePath", () => {
    expect(
      buildIngestCommand({
        siteDir: "/site",
        siteConfig: site({ url: "https://book.example.com/", baseUrl: "/primer/" }),
        ingest: ingestOptions(),
        docs,
      }),
    ).toEqual({
      command: "npx",
      args: [
        "--no",
        "lectern",
        "ingest",
        "--docs",
        path.resolve("/site/docs"),
        "--base-url",
        "https://book.example.com/primer/",
        "--route-base-path",
        "docs",
      ],
      cwd: "/site",
    });
  });

  it("uses the configured command, data dir, collection and overrides, and the site's title", () => {
    const command = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site({ title: "Robotics Primer " }),
      ingest: ingestOptions({
        command: ["node", "/repo/packages/server/bin/lectern.js"],
        dataDir: ".lectern",
        docsDir: "content/book",
        baseUrl: "https://mirror.example.com/",
        routeBasePath: "",
        collection: "primer",
        strict: true,
      }),
      docs: { path: "docs", routeBasePath: "docs" },
    });
    expect(command.command).toBe("node");
    expect(command.args).toEqual([
      "/repo/packages/server/bin/lectern.js",
      "ingest",
      "--docs",
      path.resolve("/site/content/book"),
      "--base-url",
      "https://mirror.example.com/",
      "--route-base-path",
      "/",
      "--data-dir",
      path.resolve("/site/.lectern"),
      "--collection",
      "primer",
      "--title",
      "Robotics Primer",
      "--strict",
    ]);
  });

  it("serves docs-only sites from the root", () => {
    const command = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site(),
      ingest: ingestOptions(),
      docs: { path: "docs", routeBasePath: "/" },
    });
    expect(command.args.slice(-2)).toEqual(["--route-base-path", "/"]);
  });

  it("asks for ingest.docsDir when the site has no docs plugin", () => {
    expect(() =>
      buildIngestCommand({
        siteDir: "/site",
        siteConfig: site(),
        ingest: ingestOptions(),
        docs: null,
      }),
    ).toThrow(/no docs plugin .*set ingest\.docsDir/);
    const command = buildIngestCommand({
      siteDir: "/site",
      siteConfig: site(),
      ingest: ingestOptions({ docsDir: "pages" }),
      docs: null,
    });
    expect(command.args).toContain(path.resolve("/site/pages"));
    expect(command.args.slice(-2)).toEqual(["--route-base-path", "docs"]);
  });
});

describe("runIngest", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "lectern-docusaurus-ingest-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function collector() {
    let text = "";
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    return { stream, text: () => text };
  }

  it("runs the command in the site directory with its arguments", async () => {
    const out = path.join(dir, "args.json");
    await runIngest({
      command: process.execPath,
      args: [
        "-e",
        `require("fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify({ cwd: process.cwd(), args: process.argv.slice(1) }))`,
        "ingest",
        "--docs",
        "a dir",
      ],
      cwd: dir,
    });
    expect(JSON.parse(await readFile(out, "utf8"))).toEqual({
      cwd: dir,
      args: ["ingest", "--docs", "a dir"],
    });
  });

  it("reports a page whose frontmatter is a YAML alias bomb as the one failed file", async () => {
    const docs = path.join(dir, "bomb-docs");
    await mkdir(docs, { recursive: true });
    await writeFile(path.join(docs, "good.md"), "---\ntitle: Good\n---\n\nServos hold angles.\n");
    await copyFile(
      fileURLToPath(new URL("../../server/test/fixtures/yaml-alias-bomb.md", import.meta.url)),
      path.join(docs, "bomb.md"),
    );
    const lectern = fileURLToPath(new URL("../../server/bin/lectern.js", import.meta.url));
    const failure = runIngest(
      {
        command: process.execPath,
        // --strict: a failed page fails the build, as in CI.
        args: [
          lectern,
          "ingest",
          "--strict",
          "--docs",
          docs,
          "--data-dir",
          path.join(dir, "bomb-data"),
        ],
        cwd: dir,
      },
      { stderr: collector().stream },
    );
    await expect(failure).rejects.toThrow(
      /exited with code \d+\.\n[\s\S]*bomb\.md:.*aliases[\s\S]*1 file\(s\) could not be ingested/,
    );
  });

  it("fails with the command line, its exit code and the end of its stderr", async () => {
    const stderr = collector();
    const failure = runIngest(
      {
        command: process.execPath,
        args: [
          "-e",
          'console.error("error [DOCS_DIR_NOT_FOUND]: Docs directory not found"); process.exit(1)',
        ],
        cwd: dir,
      },
      { stderr: stderr.stream },
    );
    await expect(failure).rejects.toThrow(
      /^docusaurus-plugin-lectern: Lectern ingestion failed: ".+ -e .+" exited with code 1\.\nerror \[DOCS_DIR_NOT_FOUND\]: Docs directory not found$/,
    );
    // The output was shown on the build's terminal as it came.
    expect(stderr.text()).toContain("error [DOCS_DIR_NOT_FOUND]");
  });

  it("lets the build go on when one page is bad, and fails it with ingest.strict", async () => {
    const lectern = fileURLToPath(new URL("../../server/bin/lectern.js", import.meta.url));
    const docs = path.join(dir, "site", "docs");
    await mkdir(docs, { recursive: true });
    await writeFile(
      path.join(docs, "good.md"),
      "# Gears\n\nA gear ratio trades speed for torque.\n",
    );
    await writeFile(path.join(docs, "bad.md"), "---\ntitle: [unclosed\n---\n\nBody.\n");
    const command = (strict: boolean) =>
      buildIngestCommand({
        siteDir: path.join(dir, "site"),
        siteConfig: site(),
        ingest: ingestOptions({
          command: [process.execPath, lectern],
          dataDir: ".lectern",
          strict,
        }),
        docs: { path: "docs", routeBasePath: "docs" },
      });
    const stderr = collector();
    await runIngest(command(false), { stderr: stderr.stream });
    expect(stderr.text()).toMatch(/bad\.md:\d+: invalid frontmatter YAML/);
    await expect(runIngest(command(true), { stderr: collector().stream })).rejects.toThrow(
      /Lectern ingestion failed: .* --strict" exited with code 1\.[\s\S]*bad\.md/,
    );
  });

  it("says how to point the plugin at Lectern when the command does not exist", async () => {
    await expect(
      runIngest({ command: path.join(dir, "no-such-lectern"), args: ["ingest"], cwd: dir }),
    ).rejects.toThrow(
      /could not start the Lectern ingestion ".*no-such-lectern ingest" \(ENOENT\)\. .*ingest\.command/,
    );
  });
});
