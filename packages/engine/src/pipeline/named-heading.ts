import { ABOUT_PREFIX } from "../answer/suggestions.ts";
import type { ChunkRecord } from "../book/records.ts";

/**
 * The heading a question names whole, and the page it names it on: the book's suggestions ask
 * "What should I know about X?" of a heading X, or "… X in “Page”?" when several pages have a
 * section headed X (an API reference's "Arguments", a tutorial's "What's Next"); any other
 * question is read as a heading itself.
 */
export interface NamedHeading {
  heading: string;
  /** The title of the page the heading is on, when the question says. */
  page?: string;
}

const ABOUT_HEADING = new RegExp(`^${ABOUT_PREFIX}\\s+(.+?)(?:\\s+in\\s+“([^”]+)”)?\\?$`, "i");

export function namedHeading(question: string): NamedHeading {
  const asked = question.trim();
  const about = ABOUT_HEADING.exec(asked);
  if (!about?.[1]) return { heading: asked.replace(/\?+$/, "") };
  return about[2] ? { heading: about[1], page: about[2] } : { heading: about[1] };
}

/**
 * The book's suggestions about the headings of `page` (what to ask next), each naming the page
 * when another page has a section of the same heading, so that the question asked is answered
 * from this page's section, not from a namesake elsewhere.
 */
export function onTheirPage(
  questions: string[],
  page: ChunkRecord,
  sectionsHeaded: ((heading: string) => ChunkRecord[]) | undefined,
): string[] {
  if (!sectionsHeaded) return questions;
  return questions.map((question) => {
    const { heading } = namedHeading(question);
    const pages = new Set(sectionsHeaded(heading).map((chunk) => chunk.filePath));
    if (pages.size < 2 || !pages.has(page.filePath)) return question;
    const about = question.startsWith(ABOUT_PREFIX)
      ? heading
      : heading.charAt(0).toLowerCase() + heading.slice(1);
    return `${ABOUT_PREFIX} ${about} in “${page.title}”?`;
  });
}
