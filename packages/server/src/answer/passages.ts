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

interface WindowOptions {
  maxSentences: number;
  rankCount: number;
  exclude?: Passage;
  /** Text whose sentences no passage may quote (a reader's selection, already before them). */
  avoid?: string;
}

/** What every candidate's windows are weighed against: the question and what to leave out. */
interface Shared {
  query: WeightedQuestion;
  weights: [string, number][];
  excluded: Set<string>;
  avoided: string | null;
  alreadyCovered: Set<string>;
  exclude: Passage | undefined;
}

export function bestWindow(
  query: WeightedQuestion,
  candidates: Candidate[],
  options: WindowOptions,
): Passage | null {
  if (query.total === 0) return null;
  const alreadyCovered = new Set<string>();
  for (const unit of options.exclude?.units ?? [])
    for (const term of [...unit.terms, ...unit.attachmentTerms]) alreadyCovered.add(term);
  const shared: Shared = {
    query,
    weights: [...query.weights],
    excluded: new Set(options.exclude?.units.map(normalizedText) ?? []),
    avoided: options.avoid ? normalize(options.avoid) : null,
    alreadyCovered,
    exclude: options.exclude,
  };
  let best: Passage | null = null;
  for (const [position, candidate] of candidates.entries()) {
    if (options.exclude && position === options.exclude.source) continue;
    const facts = factsOf(shared, candidate, options.rankCount);
    const all = facts.units;
    forEachWindow(all, options.maxSentences, (start, end) => {
      const scored = scoreWindow(shared, facts, start, end);
      if (!scored) return;
      const { coverage, newCoverage, score } = scored;
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

/**
 * What depends on one unit (or one heading) of a candidate alone, worked out once per candidate,
 * not once per window holding it: a unit sits in up to maxSentences² windows.
 */
interface CandidateFacts {
  units: Unit[];
  headingTerms: Set<string>[];
  rankScore: number;
  repeats: boolean[] | null;
  followsAvoided: boolean[];
  /** Where each question word is, unit by unit (2: in its text, 1: in what it brings along). */
  presence: Uint8Array[];
  matches: boolean[];
  exemplifies: boolean[];
  instructs: boolean[];
  strength: (index: number) => number;
  headingShare: (section: number) => number;
}

function factsOf(shared: Shared, candidate: Candidate, rankCount: number): CandidateFacts {
  const { query, weights, excluded, avoided } = shared;
  const source = candidate.parsed;
  const all = source.units;
  const rankScore =
    (query.subject ? DEFINITION_SOURCE_WEIGHT : SOURCE_WEIGHT) * candidate.result.similarityScore +
    0.04 * (1 - candidate.rank / Math.max(1, rankCount));
  const { repeats, followsAvoided } = repeatsOf(all, excluded, avoided);
  const presence = weights.map(([term]) => {
    const codes = new Uint8Array(all.length);
    for (const [index, unit] of all.entries())
      codes[index] = unit.terms.has(term) ? 2 : unit.attachmentTerms.has(term) ? 1 : 0;
    return codes;
  });
  const matches = all.map((_, index) => presence.some((codes) => codes[index] !== 0));
  const givesCode = (unit: Unit) => unit.attachment?.startsWith("```") === true;
  const strengths: (number | undefined)[] = [];
  const headingShares = new Map<number, number>();
  return {
    units: all,
    headingTerms: source.headingTerms,
    rankScore,
    repeats,
    followsAvoided,
    presence,
    matches,
    exemplifies: all.map(
      (unit, index) =>
        (matches[index] ?? false) && (givesCode(unit) || EXAMPLE_GIVEN.test(unit.text)),
    ),
    instructs: all.map(
      (unit, index) => (unit.actionable && (matches[index] ?? false)) || givesCode(unit),
    ),
    strength: (index) => (strengths[index] ??= definitionStrength(query, all[index] as Unit)),
    headingShare: (section) => {
      let share = headingShares.get(section);
      if (share === undefined) {
        share = shareOf(query.weights, query.total, source.headingTerms[section] ?? new Set());
        headingShares.set(section, share);
      }
      return share;
    },
  };
}

/** Which units repeat the passage to leave out or the reader's selection, or follow the latter. */
function repeatsOf(
  all: Unit[],
  excluded: Set<string>,
  avoided: string | null,
): { repeats: boolean[] | null; followsAvoided: boolean[] } {
  const isAvoided = (unit: Unit) =>
    avoided !== null &&
    normalizedText(unit).length >= AVOID_MIN_LENGTH &&
    avoided.includes(normalizedText(unit));
  return {
    repeats:
      excluded.size > 0 || avoided
        ? all.map((unit) => excluded.has(normalizedText(unit)) || isAvoided(unit))
        : null,
    // A sentence leaning on the one before ("Ahead of what?") may open a passage when the one
    // before is the reader's selection: it is in front of them, the passage reads on from it.
    followsAvoided: all.map((unit, index) => {
      const previous = all[index - 1];
      return previous !== undefined && previous.run === unit.run && isAvoided(previous);
    }),
  };
}

/** A window's score, or null when it may not be quoted. */
function scoreWindow(
  shared: Shared,
  facts: CandidateFacts,
  start: number,
  end: number,
): { coverage: number; newCoverage: number; score: number } | null {
  const { query } = shared;
  const all = facts.units;
  const opener = all[start];
  // A window never opens on a sentence that leans on the one before, nor in the middle of a list.
  if (!opener) return null;
  if (
    !canOpen(opener) &&
    !(facts.followsAvoided[start] && canOpen({ ...opener, pointsBack: false }))
  )
    return null;
  if (facts.repeats && someIn(facts.repeats, start, end)) return null;
  // A second passage stays short: no list, code or table of its own.
  if (shared.exclude && someUnit(all, start, end, (unit) => Boolean(unit.attachment))) return null;
  if (!someIn(facts.matches, start, end)) return null;
  const { coverage, newCoverage } = windowCoverage(shared, facts, opener, start, end);
  let score = coverage + 0.15 * facts.headingShare(opener.section) + facts.rankScore;
  if (query.subject) score += definitionScore(facts, opener, start, end);
  // An instruction counts for a how-to question when it is about the question: an unrelated
  // "Keep the returned handle…" before the passage that answers would otherwise pull it in.
  if (query.howTo && someIn(facts.instructs, start, end)) score += 0.1;
  // So does code or a sentence giving an example, when the reader asks for one.
  if (query.example && someIn(facts.exemplifies, start, end)) score += 0.1;
  // What the book says right after the reader's selection goes on from it ("How do I fix
  // it?" after a sentence naming a QoS mismatch: "Subscribe with the sensor-data profile…").
  if (facts.followsAvoided[start]) score += FOLLOWS_SELECTION_WEIGHT;
  for (let index = start; index <= end; index++) {
    if (!facts.matches[index]) score -= 0.03;
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
  if (shared.exclude) score = newCoverage + 0.2 * score;
  return { coverage, newCoverage, score };
}

/**
 * The question's words the window holds, each by its weight: fully in a unit's text, half in the
 * heading above it or only in a list or code block the window brings along.
 */
function windowCoverage(
  shared: Shared,
  facts: CandidateFacts,
  opener: Unit,
  start: number,
  end: number,
): { coverage: number; newCoverage: number } {
  const heading = facts.headingTerms[opener.section];
  let coverage = 0;
  let newCoverage = 0;
  for (const [position, [term, weight]] of shared.weights.entries()) {
    let share = heading?.has(term) ? 0.5 : 0;
    const codes = facts.presence[position] as Uint8Array;
    for (let index = start; index <= end && share < 1; index++) {
      const code = codes[index];
      if (code === 2) share = 1;
      else if (code === 1) share = 0.5;
    }
    coverage += share * weight;
    if (!shared.alreadyCovered.has(term)) newCoverage += share * weight;
  }
  return { coverage: coverage / shared.query.total, newCoverage: newCoverage / shared.query.total };
}

/** For "what is X": how strongly the window opens on, or holds, a sentence defining X. */
function definitionScore(facts: CandidateFacts, opener: Unit, start: number, end: number): number {
  const all = facts.units;
  // A defining sentence that leans on the one before it ("For this ROS 2 offers services, a
  // …") cannot open the passage; with its one sentence of context it still counts as opening.
  const second = end > start ? all[start + 1] : undefined;
  // One that ends on a pronoun ("… is a framework that standardises it.") names X but leans
  // on the sentences before it: it counts half alone, fully with its paragraph's start.
  const first = facts.strength(start);
  let opening = Math.max(
    first > 0 && endsOnPronoun(all[start] as Unit) ? 0.5 * first : first,
    second?.pointsBack ? facts.strength(start + 1) : 0,
  );
  let inside = 0;
  for (let index = start + 1; index <= end; index++) {
    const unitStrength = facts.strength(index);
    if (unitStrength === 0) continue;
    const unit = all[index] as Unit;
    if (opener.opensParagraph && unit.paragraph === opener.paragraph && endsOnPronoun(unit))
      opening = Math.max(opening, unitStrength);
    else inside = Math.max(inside, unitStrength);
  }
  return 0.35 * opening + 0.1 * inside;
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
