/**
 * Headings of reading lists ("Further information", "See also"): their items are titles of pages,
 * articles and threads elsewhere, which a reader asking a question needs answered, not listed.
 */
export const READING_LIST =
  /^(?:further (?:information|reading)|see also|references?|(?:additional |more |external )?(?:resources|links|reading)|related (?:links|reading|resources|pages|articles|topics)|learn more|more information|bibliography)[.:]?$/i;

/** Whether a heading names a reading list, emphasis marks aside ("**See also**"). */
export function isReadingList(heading: string): boolean {
  return READING_LIST.test(heading.replace(/[*_]/g, "").trim());
}

/** Whether `path` heads the reading list of the section headed by `parent` (a sub-section of it). */
export function readsFor(path: string[], parent: string[]): boolean {
  const own = path.at(-1);
  return (
    own !== undefined &&
    isReadingList(own) &&
    path.length === parent.length + 1 &&
    parent.every((heading, index) => heading === path[index])
  );
}
