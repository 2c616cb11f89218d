/**
 * The languages the analyzer stems besides English: the text of a translated book's pages in
 * French, German, Spanish or Portuguese is stemmed by its language's Snowball stemmer, and so is a
 * question asked in that locale. Other locales (Japanese, Chinese: CJK bigrams need no stemming)
 * are analysed as English pages are. A stemmer is loaded only for a book that has its locale, so
 * an untranslated book never loads one.
 */

type Stem = (word: string) => string;

const STEMMER_MODULES: Record<string, () => Promise<{ stemmer: Stem }>> = {
  fr: () => import("@orama/stemmers/french"),
  de: () => import("@orama/stemmers/german"),
  es: () => import("@orama/stemmers/spanish"),
  pt: () => import("@orama/stemmers/portuguese"),
};

/** The most frequent function words of each language, which say nothing about a page's topic. */
const STOPWORDS: Record<string, ReadonlySet<string>> = {
  fr: words(
    "le la les un une des du de d l et ou est sont en à au aux pour par sur dans que qui quoi ce cet cette ces il elle ils elles on nous vous je tu ne pas plus se sa son ses leur leurs avec comment quel quelle quels quelles mon ma mes ton ta tes y a être avoir fait faire",
  ),
  de: words(
    "der die das den dem des ein eine einer eines einem einen und oder ist sind zu im in am an auf für mit von vom zum zur wie was wer welche welcher welches ich du er sie es wir ihr nicht kein keine sich auch als aus bei bis dass ob wird werden hat haben",
  ),
  es: words(
    "el la los las un una unos unas de del y o es son en a al para por con que qué cómo como cual cuál se su sus lo le les no más este esta estos estas ese esa yo tu él ella nosotros hay ser estar",
  ),
  pt: words(
    "o a os as um uma uns umas de do da dos das e ou é são em no na nos nas ao aos para por com que como qual se seu sua seus suas não mais este esta estes estas esse essa eu tu ele ela nós há ser estar",
  ),
};

function words(list: string): ReadonlySet<string> {
  return new Set(list.split(" "));
}

const loaded = new Map<string, Stem>();

/** The language of a locale ("pt-BR" → "pt", "fr" → "fr"), lower case. */
export function languageOfLocale(locale: string): string {
  return (locale.split(/[-_]/)[0] ?? locale).toLowerCase();
}

/** Loads the stemmers of these locales' languages (those the analyzer stems). */
export async function loadLanguages(locales: readonly { name: string }[]): Promise<void> {
  for (const locale of locales) {
    const language = languageOfLocale(locale.name);
    const load = STEMMER_MODULES[language];
    if (load && !loaded.has(language)) loaded.set(language, (await load()).stemmer);
  }
}

/**
 * The stemmed language of a translated page, by its file path (`i18n/<locale>/…`), or of the
 * slice a search is narrowed to (its file prefix); undefined for English and unstemmed languages.
 */
export function languageOfPath(filePath: string | undefined): string | undefined {
  if (!filePath?.startsWith("i18n/")) return undefined;
  const locale = filePath.slice(5).split("/")[0] ?? "";
  const language = languageOfLocale(locale);
  return STEMMER_MODULES[language] ? language : undefined;
}

/** What the analyzer needs of a language: its stemmer and its stopwords. */
export interface LanguageAnalysis {
  stem: Stem;
  stopwords: ReadonlySet<string>;
}

/**
 * The language's stemmer and stopwords. A language whose stemmer was not loaded first
 * (loadLanguages) is an error: its pages would be indexed unstemmed and never match.
 */
export function languageAnalysis(language: string): LanguageAnalysis {
  const stem = loaded.get(language);
  if (!stem) throw new Error(`The ${language} stemmer is not loaded (loadLanguages).`);
  return { stem, stopwords: STOPWORDS[language] ?? new Set() };
}
