/**
 * The path of a page URL without its fragment: "/docs/a#b" → "/docs/a",
 * "https://b.example/docs/a#b" → "/docs/a". Anything that is not a URL comes back unchanged.
 */
export function urlPath(url: string): string {
  if (url.startsWith("/")) return url.split("#")[0] ?? url;
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/**
 * The path of a site's base URL, with a trailing slash: where its build folder is served
 * ("https://x.example/handbook" → "/handbook/"; "" → "/").
 */
export function basePath(baseUrl: string): string {
  let pathname = "/";
  try {
    pathname = baseUrl ? new URL(baseUrl).pathname : "/";
  } catch {
    pathname = baseUrl.startsWith("/") ? baseUrl : "/";
  }
  return pathname.endsWith("/") ? pathname : `${pathname}/`;
}

/**
 * A page URL's path within a site served at `base` (basePath): "/handbook/guide/a" under
 * "/handbook/" → "guide/a". A path outside the base keeps all of it, without its first slash.
 */
export function pathWithin(url: string, base: string): string {
  const pathname = urlPath(url);
  return pathname.startsWith(base) ? pathname.slice(base.length) : pathname.replace(/^\/+/, "");
}
