// Over 150 lines on purpose: one install of the packed packages shared by all its checks.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  childEnv,
  type PackedPackage,
  PUBLISHED_PACKAGES,
  packPublishedPackages,
  REPO_ROOT,
  runOk,
  stdoutOf,
} from "./npm.ts";
import { portIsOpen, startServeProcess } from "./serve-process.ts";

/**
 * The packages as they would be published: packed with `npm pack`, installed from the tarballs
 * into an empty project (their dependencies come from the npm registry or its cache), and the
 * `lectern` command run there as a user would: ingest, ask, serve, stop.
 */

const BOOK = {
  "index.md": "# Garden Handbook\n\nHow to keep a small vegetable garden through the year.\n",
  "watering.md":
    "# Watering\n\n## Tomatoes\n\nWater tomatoes deeply twice a week, in the morning, at the base of the plant.\n",
  "soil.md": "# Soil\n\nMix compost into the beds every autumn so the soil keeps its structure.\n",
};

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  engines?: { node?: string };
  files?: string[];
  bin?: Record<string, string>;
  main?: string;
  types?: string;
  exports?: Record<string, unknown>;
}

let workDir: string;
let projectDir: string;
let packed: PackedPackage[];

function manifestOf(name: string): Promise<Manifest> {
  return readFile(path.join(projectDir, "node_modules", name, "package.json"), "utf8").then(
    (text) => JSON.parse(text) as Manifest,
  );
}

/**
 * Every file a package.json points at (bin, main, types, exports and their conditions), except
 * the `lectern-source` condition, which only this repository's own builds and tests use.
 */
function entryPoints(manifest: Manifest): string[] {
  const targets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object") {
      for (const [key, child] of Object.entries(value))
        if (key !== "lectern-source") collect(child);
    }
  };
  collect(manifest.bin);
  collect(manifest.main);
  collect(manifest.types);
  collect(manifest.exports);
  return [...new Set(targets)].map((target) => path.normalize(target));
}

const npx = (args: string[]) => stdoutOf("npx", ["--no", "--", "lectern", ...args], projectDir);

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "lectern-install-"));
  projectDir = path.join(workDir, "project");
  await mkdir(path.join(projectDir, "book"), { recursive: true });
  packed = await packPublishedPackages(workDir);
  await writeFile(
    path.join(projectDir, "package.json"),
    `${JSON.stringify({ name: "a-project-using-lectern", private: true }, null, 2)}\n`,
  );
  for (const [name, text] of Object.entries(BOOK)) {
    await writeFile(path.join(projectDir, "book", name), text);
  }
  await runOk(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      ...packed.map((pack) => path.join(workDir, pack.filename)),
    ],
    projectDir,
  );
}, 8 * 60_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("the packed packages installed into an empty project", () => {
  it("packs each published package with its README, license, built files and no sources or tests", async () => {
    expect(packed.map((pack) => pack.name).sort()).toEqual([...PUBLISHED_PACKAGES].sort());
    for (const pack of packed) {
      const files = pack.files.map((file) => path.normalize(file.path));
      expect(files, pack.name).toEqual(
        expect.arrayContaining(["package.json", "README.md", "LICENSE"]),
      );
      expect(
        files.filter((file) => /\.test\.|(^|\/)test\//.test(file)),
        pack.name,
      ).toEqual([]);
      // TypeScript sources stay in the repository; declaration files ship.
      expect(
        files.filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts")),
        pack.name,
      ).toEqual([]);
      const manifest = await manifestOf(pack.name);
      expect(manifest.private, pack.name).toBeUndefined();
      expect(manifest.license, pack.name).toBe("MIT");
      expect(manifest.engines?.node, pack.name).toMatch(/^>=20/);
      for (const entry of entryPoints(manifest)) {
        // A subpath pattern ("./dist/*.js") needs a file it matches.
        if (entry.includes("*")) {
          const escaped = entry
            .split("*")
            .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
          const pattern = new RegExp(`^${escaped.join(".+")}$`);
          expect(
            files.some((file) => pattern.test(file)),
            `${pack.name}: ${entry}`,
          ).toBe(true);
        } else expect(files, `${pack.name}: ${entry}`).toContain(entry);
      }
    }
  });

  it("installed the lectern command, which prints its version", async () => {
    const server = await manifestOf("@lectern/server");
    expect(server.bin).toEqual({ lectern: "./bin/lectern.js" });
    const repoVersion = JSON.parse(
      await readFile(path.join(REPO_ROOT, "packages/server/package.json"), "utf8"),
    ) as { version: string };
    expect((await npx(["--version"])).trim()).toBe(repoVersion.version);
  });

  it("ingests a book and answers from it with npx lectern", async () => {
    const ingest = await npx(["ingest", "--docs", "book", "--data-dir", ".lectern"]);
    expect(ingest).toMatch(/Files: 3 added/);
    const answer = JSON.parse(
      await npx(["ask", "How often should I water tomatoes?", "--data-dir", ".lectern", "--json"]),
    ) as { mode: string; answer: string; sources: { file_path: string; source_url: string }[] };
    expect(answer.mode).toBe("retrieval_only");
    expect(answer.answer).toMatch(/twice a week/);
    expect(answer.sources[0]?.file_path).toBe("watering.md");
    expect(answer.sources[0]?.source_url).toBe("/docs/watering#tomatoes");
  });

  it("serves the book with the installed lectern, including the widget script, and stops on SIGTERM", async () => {
    const server = await startServeProcess(
      path.join(projectDir, "node_modules", ".bin", "lectern"),
      ["serve", "--data-dir", ".lectern", "--port", "0"],
      { cwd: projectDir, env: childEnv() },
    );
    try {
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      const script = await fetch(`${server.url}/lectern.js`);
      expect(script.status).toBe(200);
      expect(await script.text()).toContain("lectern-chat");
      server.child.kill("SIGTERM");
      expect(await server.exited(5_000), server.output()).toBe(0);
      expect(server.output()).toContain("Lectern shut down");
      expect(await portIsOpen(server.port)).toBe(false);
    } finally {
      server.child.kill("SIGKILL");
    }
  });

  it("can be used as a library: the server and protocol import with their types", async () => {
    const output = await stdoutOf(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        [
          'import { loadConfig, VERSION } from "@lectern/server";',
          'import { ChatRequestSchema } from "@lectern/protocol";',
          'const config = loadConfig({ env: {}, overrides: { dataDir: ".lectern" } });',
          "console.log(VERSION, config.port, typeof ChatRequestSchema.parse);",
        ].join("\n"),
      ],
      projectDir,
    );
    expect(output.trim()).toMatch(/^\d+\.\d+\.\d+ 3000 function$/);
    for (const types of [
      "node_modules/@lectern/server/dist/index.d.ts",
      "node_modules/@lectern/protocol/dist/index.d.ts",
      "node_modules/@lectern/widget/dist/types/index.d.ts",
      "node_modules/docusaurus-plugin-lectern/src/types.d.ts",
    ]) {
      expect(existsSync(path.join(projectDir, types)), types).toBe(true);
    }
  });
});
