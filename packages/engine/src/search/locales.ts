import type { BookLocale } from "../book/records.ts";
import { createError } from "../errors.ts";
import { urlPath } from "../util/url-path.ts";

/**
 * The locale of a translated book a question is answered in. Every locale's pages share one
 * index; a locale is the pages whose file path starts with its prefix (`i18n/fr/`), the default
 * locale's being those of no translation. A book without locales has none: nothing here changes
 * its searches.
 */

export interface LocaleRequest {
  /** As the client names it: "fr", "pt-BR", or a page's `<html lang>` ("fr-FR" is fr). */
  locale?: string | undefined;
  /** The page the reader is on; a locale's segment before routeBasePath tells its locale. */
  sourceUrl?: string | null | undefined;
  routeBasePath: string;
  /** Where the request names the locale, for the error (default "filters.locale"). */
  field?: string;
}

/**
 * The locale asked for, else the one of the reader's page, else the default locale; undefined
 * for a book without locales. An unknown locale is refused (INVALID_FILTER), listing the locales.
 */
export function resolveLocale(
  locales: readonly BookLocale[],
  request: LocaleRequest,
): BookLocale | undefined {
  if (locales.length === 0) return undefined;
  const asked = request.locale?.trim();
  if (asked) {
    const found = localeNamed(locales, asked);
    if (found) return found;
    throw createError(
      "INVALID_FILTER",
      `Unknown locale "${asked}"; this book has ${locales.map((locale) => locale.name).join(", ")}.`,
      {
        details: {
          field: request.field ?? "filters.locale",
          locales: locales.map((locale) => locale.name),
        },
      },
    );
  }
  return (
    (request.sourceUrl
      ? localeOfUrl(locales, request.sourceUrl, request.routeBasePath)
      : undefined) ?? defaultLocale(locales)
  );
}

export function defaultLocale(locales: readonly BookLocale[]): BookLocale | undefined {
  return locales.find((locale) => locale.default) ?? locales[0];
}

/** By name in any case, else by language ("fr-FR" and "fr" are the book's "fr" or "fr-CA"). */
function localeNamed(locales: readonly BookLocale[], asked: string): BookLocale | undefined {
  const wanted = asked.toLowerCase().replace(/_/g, "-");
  const language = (name: string) => name.toLowerCase().split(/[-_]/)[0];
  return (
    locales.find((locale) => locale.name.toLowerCase().replace(/_/g, "-") === wanted) ??
    locales.find((locale) => language(locale.name) === language(wanted))
  );
}

/**
 * The locale whose URL segment comes before the docs' route base path in the page's path
 * (`/fr/docs/intro`, `/book/fr/docs/intro`); the default locale for a docs page without one,
 * undefined when the path is no docs page.
 */
export function localeOfUrl(
  locales: readonly BookLocale[],
  url: string,
  routeBasePath: string,
): BookLocale | undefined {
  const base = routeBasePath.replace(/^\/+|\/+$/g, "");
  const segments = urlPath(url).split("/").filter(Boolean);
  const at = base === "" ? segments.length : segments.indexOf(base.split("/").at(-1) ?? base);
  if (at < 0) return undefined;
  const before = new Set(segments.slice(0, at));
  return (
    locales.find((locale) => locale.urlSegment !== "" && before.has(locale.urlSegment)) ??
    defaultLocale(locales)
  );
}
