import { definitionStrength } from "./definitions.ts";
import { shareOf, type WeightedQuestion } from "./question-weights.ts";
import { type Candidate, forEachWindow, type Unit } from "./units.ts";

/**
 * Scoring windows of consecutive units into the passage an answer quotes (extractive.ts says
 * what counts).
 */

export interface Passage {
  /** Index in the candidates. */
  source: number;
  units: Unit[];
  coverage: number;
  newCoverage: number;
  score: number;
}

/**
 * How much the source's similarity score counts in a passage's score. The search ranked the
 * sources on the whole book's word statistics, titles and headings; the passage scoring weighs a
 * question word by how rare it is among the few sources, so a word only a weak source contains
 * would otherwise draw the answer there.
 * A "what is X" question has a stronger sign of its own, the sentence defining X, which a
 * glossary ranked below a page using X often holds: there the source counts less.
 */
const SOURCE_WEIGHT = 0.6;
const DEFINITION_SOURCE_WEIGHT = 0.2;
/**
 * What a passage opening right after the reader's selection gains: it is the book going on from
 * what they asked about. As much as an instruction counts for a how-to question.
 */
const FOLLOWS_SELECTION_WEIGHT = 0.1;
/** Scores closer than this are equal: sums of the same weights in another order differ by rounding. */
const SCORE_EPSILON = 1e-9;
/** Shorter units ("Symptom.") are too common to say a passage repeats the text to avoid. */
const AVOID_MIN_LENGTH = 20;

export function bestWindow(
  query: WeightedQuestion,
  candidates: Candidate[],
  options: {
    maxSentences: number;
    rankCount: number;
    exclude?: Passage;
    /** Text whose sentences no passage may quote (a reader's selection, already before them). */
    avoid?: string;
  },
): Passage | null {
  if (query.total === 0) return null;
  const excluded = new Set(options.exclude?.units.map(normalizedText) ?? []);
  const avoided = options.avoid ? normalize(options.avoid) : null;
  const alreadyCovered = new Set<string>();
  for (const unit of options.exclude?.units ?? [])
    for (const term of [...unit.terms, ...unit.attachmentTerms]) alreadyCovered.add(term);
  const weights = [...query.weights];
  let best: Passage | null = null;
  for (const [position, candidate] of candidates.entries()) {
    if (options.exclude && position === options.exclude.source) continue;
    const source = candidate.parsed;
    const all = source.units;
    const rankScore =
      (query.subject ? DEFINITION_SOURCE_WEIGHT : SOURCE_WEIGHT) *
        candidate.result.similarityScore +
      0.04 * (1 - candidate.rank / Math.max(1, options.rankCount));
    // What depends on one unit (or one heading) alone is worked out once per candidate, not once
    // per window holding it: a unit sits in up to maxSentences² windows.
    const repeats =
      excluded.size > 0 || avoided
        ? all.map(
            (unit) =>
              excluded.has(normalizedText(unit)) ||
              (avoided !== null &&
                normalizedText(unit).length >= AVOID_MIN_LENGTH &&
                avoided.includes(normalizedText(unit))),
          )
        : null;
    // A sentence leaning on the one before ("Ahead of what?") may open a passage when the one
    // before is the reader's selection: it is in front of them, the passage reads on from it.
    const followsAvoided = all.map((unit, index) => {
      const previous = all[index - 1];
      return (
        avoided !== null &&
        previous !== undefined &&
        previous.run === unit.run &&
        normalizedText(previous).length >= AVOID_MIN_LENGTH &&
        avoided.includes(normalizedText(previous))
      );
    });
    // Where each question word is, unit by unit (2: in its text, 1: in what it brings along), so
    // that a window's coverage is read from these rather than from the units' term sets.
    const presence = weights.map(([term]) => {
      const codes = new Uint8Array(all.length);
      for (const [index, unit] of all.entries())
        codes[index] = unit.terms.has(term) ? 2 : unit.attachmentTerms.has(term) ? 1 : 0;
      return codes;
    });
    const matches = all.map((_, index) => presence.some((codes) => codes[index] !== 0));
    const exemplifies = all.map(
      (unit, index) =>
        (matches[index] ?? false) &&
        (unit.attachment?.startsWith("```") === true || EXAMPLE_GIVEN.test(unit.text)),
    );
    const instructs = all.map(
      (unit, index) =>
        (unit.actionable && (matches[index] ?? false)) ||
        unit.attachment?.startsWith("```") === true,
    );
    const strengths: (number | undefined)[] = [];
    const strength = (index: number) =>
      (strengths[index] ??= definitionStrength(query, all[index] as Unit));
    const headingShares = new Map<number, number>();
    const headingShare = (section: number) => {
      let share = headingShares.get(section);
      if (share === undefined) {
        share = shareOf(query.weights, query.total, source.headingTerms[section] ?? new Set());
        headingShares.set(section, share);
      }
      return share;
    };
    forEachWindow(all, options.maxSentences, (start, end) => {
      const opener = all[start];
      // A window never opens on a sentence that leans on the one before, nor in the middle of a list.
      if (!opener) return;
      if (!canOpen(opener) && !(followsAvoided[start] && canOpen({ ...opener, pointsBack: false })))
        return;
      if (repeats && someIn(repeats, start, end)) return;
      // A second passage stays short: no list, code or table of its own.
      if (options.exclude && someUnit(all, start, end, (unit) => Boolean(unit.attachment))) return;
      if (!someIn(matches, start, end)) return;
      // The heading above a passage is part of what it says ("Building with colcon"): its words
      // count half, as do words found only in a list or code block the window brings along.
      const heading = source.headingTerms[opener.section];
      let coverage = 0;
      let newCoverage = 0;
      for (const [position, [term, weight]] of weights.entries()) {
        let share = heading?.has(term) ? 0.5 : 0;
        const codes = presence[position] as Uint8Array;
        for (let index = start; index <= end && share < 1; index++) {
          const code = codes[index];
          if (code === 2) share = 1;
          else if (code === 1) share = 0.5;
        }
        coverage += share * weight;
        if (!alreadyCovered.has(term)) newCoverage += share * weight;
      }
      coverage /= query.total;
      newCoverage /= query.total;
      let score = coverage + 0.15 * headingShare(opener.section) + rankScore;
      if (query.subject) {
        // A defining sentence that leans on the one before it ("For this ROS 2 offers services, a
        // …") cannot open the passage; with its one sentence of context it still counts as opening.
        const second = end > start ? all[start + 1] : undefined;
        // One that ends on a pronoun ("… is a framework that standardises it.") names X but leans
        // on the sentences before it: it counts half alone, fully with its paragraph's start.
        const first = strength(start);
        let opening = Math.max(
          first > 0 && endsOnPronoun(all[start] as Unit) ? 0.5 * first : first,
          second?.pointsBack ? strength(start + 1) : 0,
        );
        let inside = 0;
        for (let index = start + 1; index <= end; index++) {
          const unitStrength = strength(index);
          if (unitStrength === 0) continue;
          const unit = all[index] as Unit;
          if (opener.opensParagraph && unit.paragraph === opener.paragraph && endsOnPronoun(unit))
            opening = Math.max(opening, unitStrength);
          else inside = Math.max(inside, unitStrength);
        }
        score += 0.35 * opening + 0.1 * inside;
      }
      // An instruction counts for a how-to question when it is about the question: an unrelated
      // "Keep the returned handle…" before the passage that answers would otherwise pull it in.
      if (query.howTo && someIn(instructs, start, end)) score += 0.1;
      // So does code or a sentence giving an example, when the reader asks for one.
      if (query.example && someIn(exemplifies, start, end)) score += 0.1;
      // What the book says right after the reader's selection goes on from it ("How do I fix
      // it?" after a sentence naming a QoS mismatch: "Subscribe with the sensor-data profile…").
      if (followsAvoided[start]) score += FOLLOWS_SELECTION_WEIGHT;
      for (let index = start; index <= end; index++) {
        if (!matches[index]) score -= 0.03;
        // A lead-in going on from the list or code before it continues the passage.
        const previous = all[index - 1];
        if (index > start && previous?.paragraph !== all[index]?.paragraph && !previous?.attachment)
          score -= 0.03;
      }
      const following = all[end + 1];
      if (
        start === end &&
        following &&
        following.paragraph === opener.paragraph &&
        following.run === opener.run
      )
        score -= 0.08;
      if (options.exclude) score = newCoverage + 0.2 * score;
      // Equal scores (within rounding) keep the passage the book says first: the earlier source,
      // or of two chunks of one page (a result and its section's start), the earlier chunk.
      if (
        !best ||
        score > best.score + SCORE_EPSILON ||
        (score >= best.score - SCORE_EPSILON && saidBefore(candidate, candidates[best.source]))
      ) {
        best = {
          source: position,
          units: all.slice(start, end + 1),
          coverage,
          newCoverage,
          score,
        };
      }
    });
  }
  return best;
}

/** A sentence giving an example ("For example, …", "… e.g. …", "Here's how that looks:"). */
const EXAMPLE_GIVEN =
  /(?:^|\W)(?:for (?:example|instance)|e\.g\.|such as|as an example|an example|this example|the example|looks like this|like this:|here'?s how)/i;

/** Whether a passage may open on a unit: not one leaning on the one before, nor a list's middle. */
export function canOpen(unit: Unit): boolean {
  return !unit.pointsBack && !(unit.item && !unit.opensParagraph);
}

/** Whether a candidate comes before another in the same page. */
function saidBefore(candidate: Candidate, other: Candidate | undefined): boolean {
  if (!other || candidate === other) return false;
  const chunk = candidate.result.chunk;
  const otherChunk = other.result.chunk;
  return chunk.filePath === otherChunk.filePath && chunk.chunkIndex < otherChunk.chunkIndex;
}

/** The object of its last verb is a pronoun ("… standardises it."), not "… around all of them.". */
const ENDS_ON_PRONOUN =
  /(?<!\b(?:of|to|with|in|on|for|from|by|around|about|at|into|all|both|each|of all)\s)\b(?:it|this|that|them|these|those)[.!]?["”’)]*$/i;

function endsOnPronoun(unit: Unit): boolean {
  return ENDS_ON_PRONOUN.test(unit.text);
}

function someIn(flags: boolean[], start: number, end: number): boolean {
  for (let index = start; index <= end; index++) if (flags[index]) return true;
  return false;
}

function someUnit(
  units: Unit[],
  start: number,
  end: number,
  test: (unit: Unit) => boolean,
): boolean {
  for (let index = start; index <= end; index++) {
    const unit = units[index];
    if (unit && test(unit)) return true;
  }
  return false;
}

// Units are parsed once per chunk and kept (units.ts), so their normalised text can be too.
const normalizedUnits = new WeakMap<Unit, string>();

function normalizedText(unit: Unit): string {
  let text = normalizedUnits.get(unit);
  if (text === undefined) {
    text = normalize(unit.text);
    normalizedUnits.set(unit, text);
  }
  return text;
}

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
