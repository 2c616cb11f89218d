import { safeLinkUrl } from "../markdown/safe-url.ts";

/** Leaving for a search result; an object so tests can watch it (jsdom cannot navigate). */
export const navigation = {
  go(url: string): void {
    const safe = safeLinkUrl(url);
    if (safe) window.location.assign(safe);
  },
};
