import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The dependency rule (`.dependency-cruiser.cjs`, run by `npm run lint:deps` in `npm test`) is
 * checked here on a small tree laid out like the repository, so a deliberately wrong import shows
 * that the check fails when the rule is broken (and the real tree passing shows nothing by itself).
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const rules = createRequire(import.meta.url)(path.join(ROOT, ".dependency-cruiser.cjs")) as {
  forbidden: unknown[];
};

let tree: string;
const previousCwd = process.cwd();

async function file(relative: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(tree, relative)), { recursive: true });
  await writeFile(path.join(tree, relative), text);
}

async function violations(): Promise<string[]> {
  process.chdir(tree);
  try {
    const result = await cruise(["packages"], {
      ruleSet: { forbidden: rules.forbidden } as never,
      validate: true,
      tsPreCompilationDeps: true,
    });
    const output = result.output as ICruiseResult;
    return output.summary.violations.map(
      (violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`,
    );
  } finally {
    process.chdir(previousCwd);
  }
}

beforeAll(async () => {
  tree = await mkdtemp(path.join(tmpdir(), "lectern-deps-"));
  await file("packages/protocol/src/index.ts", "export const WIRE = 1;\n");
  await file("packages/server/src/http/route.ts", 'import "../pipeline/turn.ts";\n');
  await file("packages/server/src/pipeline/turn.ts", 'import "../search/rank.ts";\n');
  await file("packages/server/src/search/rank.ts", "export const RANK = 1;\n");
  await file("packages/server/src/cli/main.ts", 'import "../http/route.ts";\n');
  await file("packages/widget/src/chat.ts", 'import "../../protocol/src/index.ts";\n');
  await file("packages/engine/src/search/score.ts", 'import "../util/round.ts";\n');
  await file("packages/engine/src/util/round.ts", "export const ROUND = 1;\n");
  await file(
    "packages/server/src/search/engine-user.ts",
    'import "../../../engine/src/search/score.ts";\n',
  );
});

afterAll(async () => {
  await rm(tree, { recursive: true, force: true });
});

describe("the dependency rule", () => {
  it("accepts imports that point down the layers", async () => {
    expect(await violations()).toEqual([]);
  });

  it("fails on a pipeline module that imports the HTTP layer", async () => {
    await file("packages/server/src/pipeline/wrong.ts", 'import "../http/route.ts";\n');
    try {
      expect(await violations()).toContain(
        "pipeline-stays-below-http: packages/server/src/pipeline/wrong.ts → packages/server/src/http/route.ts",
      );
    } finally {
      await rm(path.join(tree, "packages/server/src/pipeline/wrong.ts"));
    }
  });

  it("fails on the widget importing the server, and on anything importing the CLI", async () => {
    await file("packages/widget/src/wrong.ts", 'import "../../server/src/search/rank.ts";\n');
    await file("packages/server/src/search/wrong.ts", 'import "../cli/main.ts";\n');
    try {
      const found = await violations();
      expect(found).toContain(
        "widget-speaks-protocol-only: packages/widget/src/wrong.ts → packages/server/src/search/rank.ts",
      );
      expect(found).toContain(
        "nothing-imports-cli: packages/server/src/search/wrong.ts → packages/server/src/cli/main.ts",
      );
    } finally {
      await rm(path.join(tree, "packages/widget/src/wrong.ts"));
      await rm(path.join(tree, "packages/server/src/search/wrong.ts"));
    }
  });

  it("fails on the engine importing a Node built-in or the server", async () => {
    await file(
      "packages/engine/src/search/wrong.ts",
      'import "node:fs";\nimport "path";\nimport "../../../server/src/search/rank.ts";\n',
    );
    try {
      const found = await violations();
      expect(found).toContain(
        "engine-has-no-node-built-ins: packages/engine/src/search/wrong.ts → fs",
      );
      expect(found).toContain(
        "engine-has-no-node-built-ins: packages/engine/src/search/wrong.ts → path",
      );
      expect(found).toContain(
        "engine-stands-apart-from-the-server: packages/engine/src/search/wrong.ts → packages/server/src/search/rank.ts",
      );
    } finally {
      await rm(path.join(tree, "packages/engine/src/search/wrong.ts"));
    }
  });
});
