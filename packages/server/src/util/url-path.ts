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
