import { describe, expect, it } from "vitest";
import { childEnv, REPO_ROOT, run } from "./npm.ts";

/**
 * The repository's npm settings (package.json's allowScripts and engines, .npmrc) as a developer
 * meets them: npm commands print no warning about them, and onnxruntime-node's install script,
 * which downloads CUDA libraries from NuGet, never runs.
 */

describe("npm in the repository", () => {
  it("reads the project's settings without a warning", async () => {
    const result = await run("npm", ["pkg", "get", "name"], REPO_ROOT);
    expect(result.code, result.output).toBe(0);
    expect(result.output).not.toMatch(/npm warn/i);
  });

  it("does not run onnxruntime-node's install script", async () => {
    // Were the policy to let the script run, the variable keeps it from downloading.
    const env = childEnv({ ONNXRUNTIME_NODE_INSTALL: "skip" });
    const result = await run(
      "npm",
      ["rebuild", "onnxruntime-node", "--foreground-scripts", "--loglevel=info"],
      REPO_ROOT,
      env,
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("rebuilt dependencies successfully");
    expect(result.output).not.toMatch(/run onnxruntime-node@[^ ]+ postinstall/);
  });
});
