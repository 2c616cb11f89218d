/**
 * The docs version of the page being read, as Docusaurus tells it on doc pages
 * (`<meta name="docusaurus_version">`, also `docsearch:version`): "current" for the unreleased
 * docs, else the version's name. Undefined on other pages and other sites; the server then reads
 * the version from the page's URL.
 */
export function pageDocsVersion(doc: Document = document): string | undefined {
  for (const name of ["docusaurus_version", "docsearch:version"]) {
    const content = doc.querySelector(`meta[name="${name}"]`)?.getAttribute("content")?.trim();
    if (content) return content.split(",")[0]?.trim() || undefined;
  }
  return undefined;
}

/**
 * The language of the page being read, as Docusaurus sets it on `<html lang>` (the locale, or its
 * `htmlLang`: "fr", "pt-BR"): a translated book answers in it. Undefined when the page has none.
 */
export function pageLocale(doc: Document = document): string | undefined {
  return doc.documentElement.getAttribute("lang")?.trim() || undefined;
}
