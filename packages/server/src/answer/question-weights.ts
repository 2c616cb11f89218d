import { analyze, analyzeQuery, plainWordForms } from "../search/analyzer.ts";
import { CONTEXT_WEIGHT } from "../search/search-terms.ts";
import { sum } from "../util/numbers.ts";
import { comparedItems } from "./comparisons.ts";
import type { ParsedChunk, Unit } from "./units.ts";

/**
 * The question as the passage scoring sees it: each word weighted by how rare it is among the
 * candidate chunks, and for "what is X" questions the subject X (see extractive.ts).
 */

export interface WeightedQuestion {
  weights: Map<string, number>;
  /** Sum of the weights of the words some candidate contains: what an answer could cover. */
  total: number;
  /** The X of "what is X" questions, null for other questions. */
  subject: Map<string, number> | null;
  subjectTotal: number;
  /** Every word of the subject, qualifiers included ("ros", "2" in "a ROS 2 service"). */
  subjectWords: Set<string>;
  /**
   * The form of each plain word of the subject, by its term: a sentence or heading naming X must
   * use X's word, not another word of the same stem ("immutable" for immutability).
   */
  subjectForms: Map<string, string>;
  /**
   * The code identifiers X is written with that the candidates contain ("useselector" for
   * useSelector): a sentence defining X names one of them whole, where "A selector is …" defines
   * one of its parts.
   */
  subjectIdentifiers: Set<string>;
  /** X as the reader wrote it, without its article ("" when the question asks no "what is X"). */
  subjectText: string;
  /** Matches the spelled-out form of a subject written in capitals ("ZMP" → zero moment point). */
  acronym: RegExp | null;
  /** "How do I …" questions: instructions and code answer them better than descriptions. */
  howTo: boolean;
  /** Asks for an example ("Show me an example of a launch file"): code or "for example" answers. */
  example: boolean;
  /** The things a comparison question compares, each as its words (comparisons.ts); [] if none. */
  compared: string[][];
}

const DEFINITION_QUESTION =
  /^(?:what|who)(?:'s|\s+(?:is|are|was|were))\s+(?:an?\s+|the\s+)?(.+?)\??$|^what\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for|do)\b.*$|^(?:define|definition\s+of|meaning\s+of|what\s+is\s+meant\s+by)\s+(?:an?\s+|the\s+)?(.+?)\??$|^how\s+(?:does|do)\s+(?:an?\s+|the\s+)?(.+?)\s+work\??$/i;

/** Question words that frame a definition question rather than name its topic. */
const FRAME_TERMS = new Set(
  analyze("mean meaning means stand stands used use defined definition define meant refer work"),
);

const HOW_TO = /^(?:how (?:do|can|should|would|could) (?:i|you|we)|how to)\b/i;
/** Whether a question asks for an example ("Can you give me an example?", "Examples of …"). */
export function asksForExample(question: string): boolean {
  return ASKS_EXAMPLE.test(question);
}

const ASKS_EXAMPLE =
  /\b(?:an?|some|another|any|more|concrete|code|real)\s+(?:\w+\s+)?examples?\b|^examples?\b/i;

/**
 * The weights of a question's words; `context` is the earlier question a follow-up was searched
 * with ("and how do I take it out again later?" after one about loading a reducer lazily): its
 * words count at CONTEXT_WEIGHT, as in the search, so the passage quoted is about what the
 * reader is still asking about. Together they weigh at most `contextShare` of the question's own
 * words (a selection the question asks about may weigh as much as the question: see
 * ExtractiveOptions.selectionContext).
 */
export function weighQuestion(
  question: string,
  sources: ParsedChunk[],
  context?: string,
  compared: string[][] = comparedItems(question),
  contextShare = CONTEXT_WEIGHT,
): WeightedQuestion {
  const normalized = question.trim().replace(/\s+/g, " ");
  const analyzed = analyzeQuery(normalized);
  const definition = DEFINITION_QUESTION.exec(normalized);
  const { partsOf, identifierParts } = identifiersOf(normalized, analyzed, sources, definition);
  const suffixes = librarySuffixes(normalized.split(" "));
  const words = analyzed.words.filter((word) => !identifierParts.has(word) && !suffixes.has(word));
  const idf = idfAmong(sources);
  const { subjectText, subjectTerms, second } = subjectOf(normalized, definition);
  const weights = new Map<string, number>();
  for (const term of words) {
    if (definition && FRAME_TERMS.has(term)) continue;
    const inSubject = subjectTerms.includes(term);
    // A comparison is about the things compared: the rest ("difference", the "frame" both are)
    // places them, as the words outside X place a definition's subject.
    const aside = compared.length > 0 && !compared.some((words) => words.includes(term));
    const weight =
      idf(term) * (subjectTerms.length === 0 || inSubject || second ? 1 : 0.3) * (aside ? 0.3 : 1);
    if (weight > 0) weights.set(term, weight);
  }
  for (const [identifier, parts] of partsOf) {
    const weight = sum(parts.map(idf));
    if (weight > 0 && !weights.has(identifier)) weights.set(identifier, weight);
  }
  if (context && !definition) addContext(weights, analyzeQuery(context).words, idf, contextShare);
  const subject = subjectWeights(weights, subjectTerms, sources);
  return {
    weights,
    total: sum(weights.values()),
    subject: subject && subject.size > 0 ? subject : null,
    subjectTotal: subject ? sum(subject.values()) : 0,
    subjectWords: new Set(subjectTerms),
    subjectText: subjectTerms.length > 0 ? subjectText.trim() : "",
    subjectForms: plainWordForms(subjectTerms.length > 0 ? subjectText : ""),
    subjectIdentifiers: new Set(
      subjectTerms.length > 0
        ? analyzeQuery(subjectText).identifiers.filter((identifier) =>
            sources.some((source) => source.allTerms.has(identifier)),
          )
        : [],
    ),
    howTo: HOW_TO.test(normalized),
    example: ASKS_EXAMPLE.test(normalized),
    compared,
    acronym: /^[A-Z]{2,6}$/.test(subjectText.trim())
      ? new RegExp(
          `\\b${[...subjectText.trim().toLowerCase()].join("[\\p{L}-]*[\\s-]+")}[\\p{L}-]*`,
          "iu",
        )
      : null,
  };
}

/** A word's idf among the candidate chunks (0 for a word none of them has). */
function idfAmong(sources: ParsedChunk[]): (term: string) => number {
  const count = sources.length;
  return (term) => {
    const df = sources.filter((source) => source.allTerms.has(term)).length;
    return df === 0 ? 0 : Math.log(1 + (count + 1) / (df + 0.5));
  };
}

/**
 * An identifier the reader wrote ("createStore") names one thing: a sentence saying "creating"
 * and "store" apart does not mention it. The identifier counts whole, with the weight its parts
 * have together (`partsOf`); the parts count on their own only where the question also writes
 * them apart ("… to create my store"), else they are `identifierParts`, left out.
 * Not in "what is X": a sentence defining X often spells it out ("the ros2_control framework
 * takes over the control loop"), and the subject already weighs X's words (definitions.ts).
 */
function identifiersOf(
  normalized: string,
  analyzed: ReturnType<typeof analyzeQuery>,
  sources: ParsedChunk[],
  definition: RegExpExecArray | null,
): { partsOf: Map<string, string[]>; identifierParts: Set<string> } {
  const identifiers = definition
    ? []
    : analyzed.identifiers.filter((identifier) =>
        sources.some((source) => source.allTerms.has(identifier)),
      );
  const tokens = normalized.split(" ");
  const partsOf = new Map<string, string[]>();
  for (const token of tokens) {
    const terms = analyze(token);
    const identifier = terms.find((term) => identifiers.includes(term));
    if (identifier)
      partsOf.set(
        identifier,
        terms.filter((term) => term !== identifier),
      );
  }
  const plainWords = analyzeQuery(
    tokens.filter((token) => !analyze(token).some((term) => partsOf.has(term))).join(" "),
  ).words;
  const identifierParts = new Set(
    [...partsOf.values()].flat().filter((part) => !plainWords.includes(part)),
  );
  return { partsOf, identifierParts };
}

/**
 * The ".js" of a library's name ("Immutable.js") says only that it is JavaScript: alone it would
 * match "Next.js" as well. The suffixes the question writes only that way.
 */
function librarySuffixes(tokens: string[]): Set<string> {
  const named = tokens.filter((token) => /^[\p{L}][\w-]*\.(?:js|ts)\b/iu.test(token));
  const suffixes = new Set<string>();
  if (named.length > 0) {
    const apart = analyzeQuery(tokens.filter((token) => !named.includes(token)).join(" ")).words;
    for (const token of named) {
      const suffix = /\.(js|ts)\b/i.exec(token)?.[1]?.toLowerCase();
      if (suffix && !apart.includes(suffix)) suffixes.add(suffix);
    }
  }
  return suffixes;
}

/** The X of "what is X" as written and as terms, and the second question asked with it. */
function subjectOf(
  normalized: string,
  definition: RegExpExecArray | null,
): { subjectText: string; subjectTerms: string[]; second: RegExpExecArray | null } {
  const asked = definition
    ? (definition[1] ?? definition[2] ?? definition[3] ?? definition[4] ?? "")
    : "";
  // "What is a thunk, and how do I write one?": X is "thunk"; the second question's words weigh
  // as much as X's, since a passage answering both is the best answer.
  const second =
    /,?\s+(?:and|or|but)\s+(?:how|what|why|when|where|which|who|can|could|should|would|do|does|is|are)\b.*$/i.exec(
      asked,
    );
  const subjectText = definition
    ? asked
        .slice(0, second ? second.index : asked.length)
        .replace(/\s+(?:used|in|for|within|inside|when|on)\b.*$/i, "")
        .replace(/[?.!]+$/, "")
        .replace(/\s+(?:file|files|thing|concept|term|idea)$/i, "")
    : "";
  const subjectTerms =
    subjectText && !/\bdifference\b|\bbetween\b/i.test(normalized) ? analyze(subjectText) : [];
  return { subjectText, subjectTerms, second };
}

/**
 * The earlier turn's words, each at CONTEXT_WEIGHT; together they weigh at most `contextShare`
 * of the question's own words: the earlier turn completes the question ("it" is a thunk), the new
 * words say what is asked about it ("a test").
 */
function addContext(
  weights: Map<string, number>,
  contextWords: string[],
  idf: (term: string) => number,
  contextShare: number,
): void {
  const own = sum(weights.values());
  const earlier = new Map<string, number>();
  for (const term of contextWords) {
    const weight = idf(term) * CONTEXT_WEIGHT;
    if (weight > 0 && !weights.has(term)) earlier.set(term, weight);
  }
  const scale = Math.min(1, (contextShare * own) / Math.max(sum(earlier.values()), 1e-9));
  for (const [term, weight] of earlier) weights.set(term, weight * scale);
}

/**
 * X's words and weights; subject words every candidate contains ("ROS 2" in "a ROS 2 service")
 * qualify the subject rather than name it, and weigh half (in `weights`, changed here).
 */
function subjectWeights(
  weights: Map<string, number>,
  subjectTerms: string[],
  sources: ParsedChunk[],
): Map<string, number> | null {
  const everywhere = (term: string) => sources.every((source) => source.allTerms.has(term));
  const core = subjectTerms.filter((term) => weights.has(term) && !everywhere(term));
  const subject = subjectTerms.length > 0 ? new Map<string, number>() : null;
  for (const term of core.length > 0 ? core : subjectTerms) {
    const weight = weights.get(term);
    if (weight && subject) subject.set(term, weight);
  }
  for (const term of subjectTerms) {
    const weight = weights.get(term);
    if (weight && subject && !subject.has(term)) weights.set(term, weight * 0.5);
  }
  return subject;
}

export function shareOf(weights: Map<string, number>, total: number, terms: Set<string>): number {
  if (total === 0) return 0;
  let matched = 0;
  for (const [term, weight] of weights) if (terms.has(term)) matched += weight;
  return matched / total;
}

export function coverageOf(weights: Map<string, number>, total: number, units: Unit[]): number {
  const terms = new Set<string>();
  for (const unit of units) for (const term of unit.terms) terms.add(term);
  return shareOf(weights, total, terms);
}

export function anyOf(weights: Map<string, number>, terms: Set<string>): boolean {
  for (const term of terms) if (weights.has(term)) return true;
  return false;
}
