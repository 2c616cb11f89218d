import path from "node:path";
import type { Config } from "../../config/config.ts";
import type { DocSource } from "../../ingest/doc-source.ts";
import { scanDocs } from "../../ingest/files.ts";
import { refuseIfLocked } from "../../ingest/ingest-lock.ts";
import type { VersionedDocs } from "../../ingest/versioned-site.ts";
import { type Lectern, openLectern } from "../../lectern.ts";
import { type Flags, UsageError } from "../flags.ts";
import { formatIngestSummary } from "../format.ts";
import { createProgressBar } from "../progress.ts";

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

/**
 * Ingests with a progress bar and prints the report. 1 when the embedding failed; a page that
 * could not be ingested is reported and keeps its previous version while the others are indexed,
 * which gives 0 unless `strict` (for CI, where a broken page should fail the check). `replace`
 * lets another docs folder replace the book this index holds.
 */
export async function runIngest(
  lectern: Lectern,
  docs: string | DocSource | VersionedDocs,
  {
    json,
    strict,
    replace = false,
    extra = {},
  }: {
    json: boolean;
    strict: boolean;
    replace?: boolean;
    /** More fields for the `--json` report (the crawl's). */
    extra?: Record<string, unknown>;
  },
): Promise<number> {
  const progress = createProgressBar();
  const report = await lectern
    .ingest(docs, (event) => progress.update(event), { replace })
    .finally(() => progress.finish());
  const book = {
    title: (await lectern.title()) ?? null,
    dataDir: path.resolve(lectern.config.dataDir),
    ...(lectern.versions.length > 0
      ? { versions: lectern.versions.map(({ name, label, latest }) => ({ name, label, latest })) }
      : {}),
    ...(lectern.locales.length > 0
      ? {
          locales: lectern.locales.map(({ name, default: isDefault }) => ({
            name,
            default: isDefault,
          })),
        }
      : {}),
  };
  if (json) {
    const { addedChunks: _added, removedChunkIds: _removed, ...summary } = report;
    process.stdout.write(`${JSON.stringify({ ...summary, ...extra, book }, null, 2)}\n`);
  } else {
    for (const failure of report.failures) process.stderr.write(`✗ ${failure.message}\n`);
    process.stdout.write(`${formatIngestSummary(report)}\n`);
    process.stdout.write(`Book: ${book.title ?? "(untitled)"}, index in ${book.dataDir}\n`);
    if (book.versions) {
      const names = book.versions.map((version) =>
        version.latest ? `${version.label} (latest)` : version.label,
      );
      process.stdout.write(`Versions: ${names.join(", ")}\n`);
    }
    if (book.locales) {
      const names = book.locales.map((locale) =>
        locale.default ? `${locale.name} (default)` : locale.name,
      );
      process.stdout.write(`Locales: ${names.join(", ")}\n`);
    }
  }
  const embeddings = report.embeddings;
  if (embeddings && !json) {
    process.stdout.write(
      `Embeddings: ${embeddings.embedded} chunks embedded in ${embeddings.seconds.toFixed(2)} s with ${lectern.embedder.provider}:${lectern.embedder.modelId}\n`,
    );
  }
  if (embeddings?.failed) {
    process.stderr.write(
      `Embedding stopped (${embeddings.failed}); ${embeddings.pending} chunk(s) still need embeddings. Run the same command again to continue where it stopped.\n`,
    );
    return 1;
  }
  if (report.failures.length > 0) {
    process.stderr.write(
      `${report.failures.length} file(s) could not be ingested; their previous versions (if any) were kept${strict ? "." : ", and the other pages are indexed (--strict makes this an error)."}\n`,
    );
    return strict ? 1 : 0;
  }
  return 0;
}
