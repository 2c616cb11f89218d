import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { childEnv, packPublishedPackages, runOk } from "../../server/test/npm.ts";

/**
 * One npm install of Docusaurus 3, React and the packed Lectern and plugin, shared by every site
 * the Docusaurus tests build: the first site lives at its root, the others in folders of their
 * own inside it (`npx docusaurus build <folder>` from the root). Slow (an npm install from the
 * registry); SKIP_DOCUSAURUS_BUILD=1 skips the tests that need it, outside CI.
 */

export const skipDocusaurusBuild =
  process.env.SKIP_DOCUSAURUS_BUILD === "1" && process.env.CI !== "true";

let installing: Promise<string> | undefined;

/** The install's folder, installed on the first call. */
export function docusaurusInstall(): Promise<string> {
  installing ??= install();
  return installing;
}

/** Removes the install, once every test that builds in it is done. */
export async function removeDocusaurusInstall(): Promise<void> {
  const root = await installing?.catch(() => undefined);
  installing = undefined;
  if (root) await rm(root, { recursive: true, force: true });
}

async function install(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "lectern-docusaurus-site-"));
  // The sites need Lectern and the plugin; the widget reaches their pages as a script.
  const tarballs = (await packPublishedPackages(root))
    .filter((pack) => pack.name !== "@lectern/widget")
    .map((pack) => `./${pack.filename}`);
  await writeFile(
    path.join(root, "package.json"),
    `${JSON.stringify({ name: "lectern-docusaurus-site", private: true }, null, 2)}\n`,
  );
  await runOk(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      // Packages already in npm's cache are taken from it without asking the registry again.
      "--prefer-offline",
      "@docusaurus/core@3",
      "@docusaurus/preset-classic@3",
      "react@18",
      "react-dom@18",
      "remark-math@6",
      "rehype-katex@7",
      ...tarballs,
    ],
    root,
  );
  return root;
}

/**
 * `npx docusaurus build <siteDir>` of a site in a folder of the install; its output. Webpack's
 * persistent cache sits in the install's node_modules, one for all its sites, and a site built
 * after another could be given the other's modules from it: these builds go without it. Nor are
 * their scripts and styles minified (a third of the build's time): the pages' HTML is the same.
 */
export function buildSiteFolder(root: string, siteDir: string): Promise<string> {
  const env = childEnv({ DOCUSAURUS_NO_PERSISTENT_CACHE: "1" });
  return runOk("npx", ["--no", "docusaurus", "build", siteDir, "--no-minify"], root, env);
}
