import path from "node:path";
import type { Config } from "../../config/config.ts";
import { scanDocs } from "../../ingest/files.ts";
import { refuseIfLocked } from "../../ingest/ingest-lock.ts";
import { openLectern } from "../../lectern.ts";
import { type Flags, UsageError } from "../flags.ts";
import { runIngest } from "./run-ingest.ts";

/**
 * `lectern ingest --docs <dir> | --site <dir> [--docs-path docs] [--title <title>] [--replace]
 * [--reembed] [--strict] [--json]`, or with `--url <url>` / `--sitemap <url>` a site crawled over
 * HTTP (commands/ingest-site.ts).
 */
export async function ingestCommand(config: Config, flags: Flags): Promise<number> {
  if (flags.url !== undefined || flags.sitemap !== undefined) {
    // The crawler and its HTML parser load only for a site.
    return (await import("./ingest-site.ts")).ingestSiteCommand(config, flags);
  }
  if (flags.site || config.versions?.length) return ingestSite(config, flags, flags.site);
  if (!config.docsDir) {
    throw new UsageError(
      "Missing --docs <dir> (or LECTERN_DOCS_DIR), --site <dir> or --url <site>.",
    );
  }
  const docsDir = config.docsDir;
  await scanDocs(docsDir); // fail fast on a missing or empty folder, before opening the database
  await refuseIfLocked(config.dataDir, config.collection); // and on an ingest already running
  const reembed = Boolean(flags.reembed);
  const lectern = await openLectern(config, { reembed, workload: "ingest" });
  try {
    if (reembed) await lectern.vectors?.deleteAll();
    return await runIngest(lectern, docsDir, {
      json: Boolean(flags.json),
      strict: Boolean(flags.strict),
      replace: Boolean(flags.replace),
    });
  } finally {
    await lectern.close();
  }
}

/**
 * A versioned book: a Docusaurus site (`--site`) or the versions of the configuration, every
 * version in one book (ingest/versioned-site.ts).
 */
async function ingestSite(
  config: Config,
  flags: Flags,
  siteDir: string | undefined,
): Promise<number> {
  if (config.docsDir) throw new UsageError("Give either --docs or versions (--site), not both.");
  const { declaredVersions, readVersionedSite } = await import("../../ingest/versioned-site.ts");
  const files = { followLinksOutsideDocs: config.ingest.followLinksOutsideDocs };
  const site = siteDir
    ? await readVersionedSite(siteDir, {
        ...(flags["docs-path"] ? { docsPath: flags["docs-path"] } : {}),
        ...localeOptions(flags),
        files,
      })
    : declaredVersions(
        process.cwd(),
        (config.versions ?? []).map((version) => ({
          ...version,
          path: path.resolve(version.path),
        })),
        files,
      );
  await site.source.list(); // fail fast on a missing or empty version folder
  await refuseIfLocked(config.dataDir, config.collection);
  const reembed = Boolean(flags.reembed);
  const lectern = await openLectern(config, { reembed, workload: "ingest" });
  try {
    if (reembed) await lectern.vectors?.deleteAll();
    return await runIngest(lectern, site, {
      json: Boolean(flags.json),
      strict: Boolean(flags.strict),
      replace: Boolean(flags.replace),
    });
  } finally {
    await lectern.close();
  }
}

/** `--locales fr,ja` and `--default-locale en`: which translations of the site to read. */
function localeOptions(flags: Flags): { locales?: string[]; defaultLocale?: string } {
  const locales = flags.locales
    ?.split(",")
    .map((locale) => locale.trim())
    .filter(Boolean);
  for (const locale of [...(locales ?? []), flags["default-locale"] ?? "en"]) {
    if (!/^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(locale)) {
      throw new UsageError(`Not a locale: "${locale}" (e.g. fr, pt-BR).`);
    }
  }
  return {
    ...(locales ? { locales } : {}),
    ...(flags["default-locale"] ? { defaultLocale: flags["default-locale"] } : {}),
  };
}
