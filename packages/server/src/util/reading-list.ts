/**
 * Headings of reading lists ("Further information", "See also"): their items are titles of pages,
 * articles and threads elsewhere, which a reader asking a question needs answered, not listed.
 */
export const READING_LIST =
  /^(?:further (?:information|reading)|see also|references?|(?:additional |more |external )?(?:resources|links|reading)|related (?:links|reading|resources|pages|articles|topics)|learn more|more information|bibliography)[.:]?$/i;
