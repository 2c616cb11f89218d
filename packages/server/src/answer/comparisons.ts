import { analyzeQuery } from "../search/analyzer.ts";

/**
 * Questions comparing things ("What is the difference between the map frame and the odom
 * frame?", "Path versus trajectory?"): the book answers them where it names all of them, often in
 * a section of a result's page other than the one the search ranked (one source per page), such
 * as the table of standard frames next to the section on looking transforms up.
 */

const DIFFERENCE = /\bdifference between\s+(.+?)(?:\s+(?:for|in|when|on|of)\s+[^,]+)?\s*[?.!]*$/i;
const VERSUS = /^(?:what(?:'s| is)\s+)?(.+?)\s+(?:versus|vs\.?)\s+(.+?)(?:\s*[:?.!].*)?$/i;

/**
 * The things a question compares, each as its words (stemmed), less the words they all share
 * ("frame" in "the map frame and the odom frame"); none when it compares nothing.
 */
export function comparedItems(question: string): string[][] {
  const items = comparedPhrases(question)
    .map((item) => analyzeQuery(item).words)
    .filter((words) => words.length > 0);
  if (items.length < 2) return [];
  const shared = items.reduce((common, words) => common.filter((word) => words.includes(word)));
  const distinct = items.map((words) => words.filter((word) => !shared.includes(word)));
  if (distinct.every((words) => words.length > 0)) return distinct;
  // One thing is part of the other's name ("an action and an action creator"): it keeps its
  // words, and the others are told apart by the words they add ("creator").
  const inner = items.filter((_, index) => distinct[index]?.length === 0);
  if (inner.length !== 1 || !inner[0]) return [];
  const innerWords = inner[0];
  const apart = items.map((words, index) =>
    distinct[index]?.length === 0 ? words : words.filter((word) => !innerWords.includes(word)),
  );
  return apart.every((words) => words.length > 0) ? apart : [];
}

/** The things a question compares as the reader wrote them ("a topic", "a service"). */
function comparedPhrases(question: string): string[] {
  const text = question.trim().replace(/\s+/g, " ");
  const difference = DIFFERENCE.exec(text);
  const versus = difference ? null : VERSUS.exec(text);
  const raw = difference
    ? (difference[1] ?? "").split(/,\s*(?:and\s+)?|\s+and\s+/)
    : versus
      ? [versus[1] ?? "", versus[2] ?? ""]
      : [];
  return raw.map((item) => item.trim());
}
