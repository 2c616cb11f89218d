import type { BookLocale, BookVersion } from "../book/records.ts";
import { resolveLocale } from "../search/locales.ts";
import type { RetrievalResult, SearchFilters } from "../search/retriever.ts";
import { inVersion, resolveVersion, versionOfFile } from "../search/versions.ts";
import type { ChatInput } from "./types.ts";

/**
 * A question about a versioned book is answered from the version the reader reads (named in
 * `filters.version`, else told by the page's URL, else the latest). When that version has nothing
 * relevant and another has, the answer comes from the other version and says so first, rather
 * than mixing versions silently. A book without versions is searched as it always was.
 */

export interface VersionScope {
  /** The reader's version; undefined for a book without versions. */
  version: BookVersion | undefined;
  /** The reader's locale; undefined for an untranslated book. */
  locale?: BookLocale | undefined;
  /** The request's filters narrowed to that version's pages (in that locale). */
  filters: SearchFilters | undefined;
}

export function versionScope(
  versions: readonly BookVersion[],
  input: Pick<ChatInput, "filters" | "sourceUrl">,
  routeBasePath: string,
  locales: readonly BookLocale[] = [],
): VersionScope {
  const version = resolveVersion(versions, {
    version: input.filters?.version,
    sourceUrl: input.sourceUrl,
    routeBasePath,
  });
  const locale = resolveLocale(locales, {
    locale: input.filters?.locale,
    sourceUrl: input.sourceUrl,
    routeBasePath,
  });
  return { version, locale, filters: inVersion(input.filters, version, locale) };
}

/**
 * How much better (in support, 0..1) another version must match than the reader's before it
 * answers instead. On Jest's four versions and its 40 reader-worded questions, the differences up
 * to 0.07 came from the same fact worded differently between versions (29.7's `--workerThreads`),
 * those of 0.14 and more from a fact one version lacks (`mockFn.whenCalledWith`, next only).
 */
export const SUPPORT_MARGIN = 0.1;

/** The answer from another version, and the sentence that says so. */
export interface OtherVersion {
  version: BookVersion;
  filters: SearchFilters | undefined;
  retrieval: RetrievalResult;
  notice: string;
}

/**
 * When the reader's version found nothing (or only a loose match) and the whole book finds a
 * better supported answer in another version: that version's own search. Undefined otherwise.
 */
export async function otherVersionAnswer(
  versions: readonly BookVersion[],
  scope: VersionScope,
  found: RetrievalResult,
  search: (filters: SearchFilters | undefined) => Promise<RetrievalResult>,
): Promise<OtherVersion | undefined> {
  const asked = scope.version;
  if (!asked || (found.decision === "answer" && !found.lowConfidence)) return undefined;
  const { version: _version, filePrefix: _prefix, ...rest } = scope.filters ?? {};
  const unscoped = Object.keys(rest).length > 0 ? rest : undefined;
  // Every version, in the reader's locale.
  const localePrefix = scope.locale?.filePrefix ?? "";
  const anywhere = await search(
    localePrefix === "" ? unscoped : { ...unscoped, filePrefix: localePrefix },
  );
  if (anywhere.decision !== "answer" || anywhere.results.length === 0) return undefined;
  if (anywhere.signals.support < found.signals.support + SUPPORT_MARGIN) return undefined;
  const other = preferredVersion(versions, anywhere, asked, scope.locale);
  if (!other) return undefined;
  const filters = inVersion(unscoped, other, scope.locale);
  const retrieval = await search(filters);
  if (retrieval.decision !== "answer") return undefined;
  return { version: other, filters, retrieval, notice: versionNotice(asked, other) };
}

/**
 * Among the versions whose sections score (nearly) as well as the best one, the one to answer
 * from: the latest, else the newest released one, else the current docs.
 */
function preferredVersion(
  versions: readonly BookVersion[],
  found: RetrievalResult,
  asked: BookVersion,
  locale: BookLocale | undefined,
): BookVersion | undefined {
  const best = found.results[0]?.similarityScore ?? 0;
  const covering = new Set(
    found.results
      .filter((result) => result.similarityScore >= best * 0.95)
      .map((result) => versionOfFile(versions, result.chunk.filePath, locale)?.name),
  );
  // The reader's own version matches about as well: nothing to say about another.
  if (covering.has(asked.name)) return undefined;
  const rank = (version: BookVersion) =>
    version.latest ? -1 : version.name === "current" ? versions.length : versions.indexOf(version);
  return versions
    .filter((version) => version.name !== asked.name && covering.has(version.name))
    .sort((left, right) => rank(left) - rank(right))[0];
}

/** "Not in 29.7; version 30.4 covers it:" */
export function versionNotice(asked: BookVersion, other: BookVersion): string {
  return `Not in ${describe(asked)}; ${describe(other)} covers it:`;
}

function describe(version: BookVersion): string {
  return /^v?\d/i.test(version.label) ? `version ${version.label}` : `the ${version.label} version`;
}

/** Only the pages of the filters' version (all of them without one). */
export function inSlice<T>(
  filters: SearchFilters | undefined,
  items: T[],
  filePath: (item: T) => string,
): T[] {
  const prefix = filters?.filePrefix;
  return prefix ? items.filter((item) => filePath(item).startsWith(prefix)) : items;
}

/**
 * The file prefix of the docs version and locale a request names (`version`, `locale`; the
 * latest version and the default locale when absent); undefined for a book without either. An
 * unknown version or locale throws INVALID_FILTER.
 */
export function sliceFilePrefix(
  book: { versions: readonly BookVersion[]; locales: readonly BookLocale[] },
  routeBasePath: string,
  request: { version?: string | undefined; locale?: string | undefined },
): string | undefined {
  return inVersion(
    undefined,
    resolveVersion(book.versions, { version: request.version, routeBasePath, field: "version" }),
    resolveLocale(book.locales, { locale: request.locale, routeBasePath, field: "locale" }),
  )?.filePrefix;
}
