import { type ChunkBlock as Block, chunkBlocks, MIN_WORDS } from "../book/chunk-blocks.ts";
import { analyze } from "../search/analyzer.ts";
import { cachedIn, keptWith } from "../util/bounded-cache.ts";
import {
  blockTerms,
  type CardWeights,
  heldWeight,
  pairsOf,
  type QuestionWords,
  type ScoredSection,
  SENTENCE_END,
  sentencesOf,
  termsOf,
} from "./section-card.ts";

/**
 * The lead passage: the sentence or two of the ranked sections that answer the question most
 * directly, featured-snippet style. It is marked in the section card when it is the card's own,
 * quoted before the card otherwise. One scoring over every sentence window and list item of the
 * candidate sections: the share of the question's words (idf-weighted) the window holds, plus the
 * section's standing in the card ranking, plus, for "what is X", a sentence opening on X and saying
 * what it is. The weights are CARD_WEIGHTS' `lead…` entries, fitted with the card's.
 */

export interface Lead {
  section: ScoredSection;
  /** The quoted sentences (or list item), as the book writes them. */
  sentences: string[];
  /** The list, table or code block a passage ending in ":" introduces, shown with it. */
  attached: Block | undefined;
  score: number;
}

/** A sentence leaning on the one before it: it cannot open a passage. */
const POINTS_BACK =
  /^(?:this|that|these|those|it|they|its|their|here|there|such|also|however|but|so|then|otherwise|instead|in this case|in that case|as a result|to do (?:so|this))\b/i;
/**
 * What follows X in a sentence saying what X is (an aside in brackets or commas may come first):
 * "is a / is the …" (not "is published"), "means", "refers to", or the dash or colon of a
 * glossary entry ("X — a …").
 */
const DEFINITION_VERB =
  /^\s*(?:\([^)]*\)\s*)?(?:,[^,]{0,80},\s*)?(?:(?:is|are)\s+(?:an?|the|one)\b|(?:refers to|means|stands for)\b|[—–:]\s|-\s)/i;
/** A page titled so is the book's glossary: a definition question looks its entries up. */
export const GLOSSARY_TITLE = /\b(?:glossary|terminology|definitions)\b/i;

/**
 * The X of a question asking what X is, or "" for other questions. Readers ask it in many ways,
 * and often after an opening of their own: "What is X?", "what's the definition of X", "what even
 * is X", "what does X (actually) mean / stand for", "define X", and X named first, then asked
 * about: "X: what does that mean?", "'X'. meaning??", "… mentions X — what is it?".
 */
export function definitionSubject(question: string): string {
  const asked = ANCHORED.exec(question.trim());
  const subject = (asked?.[1] ?? asked?.[2] ?? asked?.[3] ?? "").trim();
  // "What is it?", "What's that setting for?": a word pointing back names nothing.
  if (subject) return POINTER.test(subject.split(/\s+/)[0] ?? "") ? "" : subject;
  const clauses = question
    .trim()
    .split(/\s*(?:[?!;]+|\.(?:\s|$)|:\s|\s[—–-]+\s|,\s+(?=and\b|or\b|but\b))\s*/)
    .filter(Boolean);
  for (const [index, clause] of clauses.entries()) {
    const within = askedAbout(clause);
    if (within) return within;
    if (POINTS_AT_NAMED.test(clause)) {
      const named = quotedTerm(question) ?? lastWords(clauses[index - 1] ?? "");
      if (named) return named;
    }
  }
  return "";
}

/** The question opening on what it asks: "What is X?", "What does X mean?", "Define X". */
const ANCHORED =
  /^(?:what|who)(?:'s|\s+(?:is|are))\s+(?:an?\s+|the\s+)?(.+?)\??$|^what\s+(?:does|do)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for)\b|^(?:define|meaning\s+of)\s+(?:an?\s+|the\s+)?(.+?)\??$/i;
/** A subject asked about within a longer question names a thing in a few words. */
const MAX_SUBJECT_WORDS = 5;

/** Up to two words of the reader's own before the question itself ("lol", "ok so"). */
const OPENING = String.raw`^(?:[\w']+\s+){0,2}?`;
const ARTICLE = String.raw`(?:an?\s+|the\s+)?`;
const ASKING_WHAT = [
  // "what's the (textbook) definition of X", "meaning of X"
  new RegExp(
    `${OPENING}(?:what(?:'s|\\s+is)\\s+)?(?:the\\s+)?(?:[\\w-]+\\s+)?(?:definition|meaning)\\s+of\\s+${ARTICLE}(.+)$`,
    "i",
  ),
  // "what (even / exactly) is X", "what's X"
  new RegExp(
    `${OPENING}what(?:'s|\\s+(?:even\\s+|exactly\\s+|actually\\s+)?(?:is|are))\\s+${ARTICLE}(.+)$`,
    "i",
  ),
  // "what does X (actually) mean / stand for"
  new RegExp(
    `${OPENING}what\\s+(?:does|do)\\s+${ARTICLE}(.+?)\\s+(?:actually\\s+|really\\s+)?(?:mean|stand\\s+for)\\b`,
    "i",
  ),
  // "define X"
  new RegExp(`${OPENING}define\\s+${ARTICLE}(.+)$`, "i"),
];
/** A clause asking what the thing just named is: "what does that mean", "meaning", "what is it". */
const POINTS_AT_NAMED =
  /^(?:so\s+|and\s+)?(?:what\s+does\s+(?:that|it|this)\s+mean|meaning|what(?:'s|\s+is)\s+(?:it|that|this))(?:\s*$|\s*,|\s+(?:and|or|then|exactly|actually)\b)/i;
/** Words that only point back ("it", "that") are no subject. */
const POINTER = /^(?:it|that|this|these|those|they|them)$/i;

function askedAbout(clause: string): string {
  for (const pattern of ASKING_WHAT) {
    // What the subject is ends where a second question starts ("X and what else …").
    const subject = (pattern.exec(clause)?.[1] ?? "")
      .replace(/\s+(?:and|or)\s+(?:what|how|why|where|when|which)\b.*$/i, "")
      .trim();
    const words = subject.split(/\s+/).filter(Boolean);
    if (words.length === 0 || words.length > MAX_SUBJECT_WORDS) continue;
    if (!POINTER.test(words[0] ?? "")) return subject;
  }
  return "";
}

/** A term the question sets in quotes ('higher order reducer', "exotic"). */
function quotedTerm(question: string): string | undefined {
  return /(?:^|[\s(])['"‘“]([^'"’”]{2,60})['"’”]/.exec(question)?.[1]?.trim();
}

/** The last words of a clause that names something: the clause itself when short, else its end. */
function lastWords(clause: string): string {
  const words = clause.trim().split(/\s+/).filter(Boolean);
  return (words.length <= 4 ? words : words.slice(-1)).join(" ");
}

/**
 * The best lead among the candidate sections (the first `weights.leadSections` ranked and, for
 * "what is X", the defining ones: see `leadCandidates`); undefined when none matches.
 */
export function bestLead(
  ranked: ScoredSection[],
  question: QuestionWords,
  subject: string,
  weights: CardWeights,
  /** Text the lead may not quote: the reader's selection, already in front of them. */
  avoid?: string,
): Lead | undefined {
  if (question.total === 0) return undefined;
  const top = ranked[0]?.score ?? 0;
  const subjectTerms = subject ? analyze(subject) : [];
  // What the phrase and the definition can add at most (a weight fitted below 0 adds nothing).
  const most =
    Math.max(0, weights.leadPhrase) +
    (subjectTerms.length > 0 ? Math.max(0, weights.leadDefinition) : 0);
  const scan: WindowScan = {
    question,
    weights,
    facts: sentenceFacts(question, subjectTerms),
    avoided: avoid ? flat(avoid) : undefined,
    most,
  };
  // No window holds more of the question than its section does: the sections are read in the
  // order of the most a window of theirs could score, and once that falls below the best score
  // found, none read later can win. The best is the same as reading them in rank order: the
  // highest score, and among equal scores the section ranked first.
  const candidates = ranked
    .map((candidate, rank) => {
      const standing = top > 0 ? (weights.leadSection * candidate.score) / top : 0;
      const bound = heldShare(candidate.section, question) + standing + most;
      return { candidate, rank, standing, bound };
    })
    .sort((a, b) => b.bound - a.bound || a.rank - b.rank);
  let best: { lead: Lead; rank: number } | undefined;
  for (const { candidate, rank, standing, bound } of candidates) {
    if (best && bound < best.lead.score - 1e-9) break;
    const lead = bestWindow(candidate, standing, scan, best ? best.lead.score - 1e-9 : -Infinity);
    if (!lead) continue;
    if (
      !best ||
      lead.score > best.lead.score ||
      (lead.score === best.lead.score && rank < best.rank)
    )
      best = { lead, rank };
  }
  return best?.lead;
}

interface WindowScan {
  question: QuestionWords;
  weights: CardWeights;
  facts: ReturnType<typeof sentenceFacts>;
  avoided: string | undefined;
  /** The most the phrase and the definition add to a window's share of the question. */
  most: number;
}

/**
 * The best window of one section (the first of equal ones) scoring `floor` or more; undefined
 * when none does. A block whose words weigh too little for any window of it to reach the floor
 * is passed over: no window holds more of the question than its block does.
 */
function bestWindow(
  candidate: ScoredSection,
  standing: number,
  scan: WindowScan,
  floor: number,
): Lead | undefined {
  const { question, weights, avoided } = scan;
  const { heldBy, wordWeight, phraseShare, opensOnSubject } = scan.facts;
  let best: Lead | undefined;
  const blocks = candidate.section.blocks;
  for (const [index, block] of blocks.entries()) {
    const next = blocks[index + 1];
    const attachable = next && next.kind !== "paragraph" && next.kind !== "heading";
    // A block holding none of the question's words has no window to quote (each must hold one).
    const held = heldWeight(question, blockTerms(block));
    if (held === 0 || held / question.total + standing + scan.most < floor) continue;
    for (const window of windowsOf(block, weights.leadSentences)) {
      if (window.introduces && !attachable) continue;
      // Every sentence quoted says something about the question: one that holds none of its
      // words is left for the card to show.
      if (window.sentences.some((sentence) => heldBy(sentence).length === 0)) continue;
      if (avoided && window.sentences.some((sentence) => avoided.includes(flat(sentence))))
        continue;
      const weight = wordWeight(window.sentences);
      if (weight === 0) continue;
      let score = weight / question.total + standing;
      if (weights.leadPhrase > 0) score += weights.leadPhrase * phraseShare(window.sentences);
      if (opensOnSubject(window.sentences[0] ?? "")) score += weights.leadDefinition;
      if (!best || score > best.score)
        best = {
          section: candidate,
          sentences: window.sentences,
          attached: window.introduces ? next : undefined,
          score,
        };
    }
  }
  return best;
}

/** The share of the question's weight whose words a section holds. */
function heldShare(section: ScoredSection["section"], question: QuestionWords): number {
  return heldWeight(question, section.termCounts) / question.total;
}

/**
 * What each sentence holds of the question and whether it says what the subject is, worked out
 * once per answer: a sentence sits in several windows, and sections share sentences. A window's
 * weight is summed over the question's words (and word pairs) in the question's order, as
 * `heldWeight` sums them, so windows holding the same words tie exactly.
 */
function sentenceFacts(question: QuestionWords, subjectTerms: string[]) {
  const words = [...question.weight];
  const pairs = [...question.pairs];
  const pairTotal = pairs.reduce((total, [, weight]) => total + weight, 0);
  const held = new Map<string, number[]>();
  const heldPairs = new Map<string, number[]>();
  const defines = new Map<string, boolean>();
  const wordsOf = (sentence: string) => positionsIn(words, termsOf(sentence));
  const pairsIn = (sentence: string) => positionsIn(pairs, pairsOf(sentence));
  const definition = (sentence: string) =>
    subjectTerms.length > 0 && definesSubject(sentence, subjectTerms, question);
  /** Positions of the question's words (or pairs) a sentence holds, in the question's order. */
  const heldBy = (sentence: string) => cachedIn(held, sentence, ALL, wordsOf);
  const pairsHeldBy = (sentence: string) => cachedIn(heldPairs, sentence, ALL, pairsIn);
  const wordsUnion = new Union(words);
  const pairsUnion = new Union(pairs);
  return {
    heldBy,
    /** The weight of the question's words the sentences hold between them. */
    wordWeight: (sentences: string[]) => wordsUnion.weight(sentences.map(heldBy)),
    /** The share of the question's word pairs (by weight) the sentences hold side by side. */
    phraseShare(sentences: string[]): number {
      if (pairs.length === 0) return 0;
      const weight = pairsUnion.weight(sentences.map(pairsHeldBy));
      return pairTotal > 0 ? weight / pairTotal : 0;
    },
    opensOnSubject: (sentence: string) => cachedIn(defines, sentence, ALL, definition),
  };
}

/** No limit: what an answer works out of its sentences goes with the answer. */
const ALL = Number.POSITIVE_INFINITY;

function positionsIn(entries: [string, number][], own: ReadonlySet<string>): number[] {
  const positions: number[] = [];
  entries.forEach(([key], at) => {
    if (own.has(key)) positions.push(at);
  });
  return positions;
}

/** The summed weight of the entries at any of several lists of positions, in entry order. */
class Union {
  private readonly seen: Uint32Array;
  private readonly weights: number[];
  private stamp = 0;

  constructor(entries: [string, number][]) {
    this.seen = new Uint32Array(entries.length);
    this.weights = entries.map(([, weight]) => weight);
  }

  weight(lists: number[][]): number {
    if (lists.length === 1) return sumAt(this.weights, lists[0] as number[]);
    const stamp = ++this.stamp;
    for (const list of lists) for (const at of list) this.seen[at] = stamp;
    let total = 0;
    for (let at = 0; at < this.weights.length; at++)
      if (this.seen[at] === stamp) total += this.weights[at] as number;
    return total;
  }
}

function sumAt(weights: number[], positions: number[]): number {
  let total = 0;
  for (const at of positions) total += weights[at] as number;
  return total;
}

interface Window {
  sentences: string[];
  /** Ends its paragraph on ":": what it introduces comes with it. */
  introduces: boolean;
}

/**
 * The windows of a block a lead may quote: up to `size` consecutive sentences of a paragraph, not
 * opening on one that leans on the sentence before, or one item of a list.
 */
function windowsOf(block: Block, size: number): Window[] {
  const bySize = keptWith(blockWindows, block, () => new Map<number, Window[]>());
  return cachedIn(bySize, size, Number.POSITIVE_INFINITY, () => windowsIn(block, size));
}

/** A block's windows, kept with the block: the book's blocks are the same request after request. */
const blockWindows = new WeakMap<Block, Map<number, Window[]>>();

function windowsIn(block: Block, size: number): Window[] {
  const long = (text: string) => text.split(/\s+/).length >= MIN_WORDS;
  if (block.kind === "list")
    return block.items
      .map((item) => item.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ""))
      .filter(long)
      .map((item) => ({ sentences: [item], introduces: false }));
  if (block.kind !== "paragraph") return [];
  const sentences = sentencesOf(block);
  const windows: Window[] = [];
  for (const [start, opener] of sentences.entries()) {
    if (!long(opener) || (start > 0 && POINTS_BACK.test(opener))) continue;
    for (let end = start; end < Math.min(sentences.length, start + size); end++)
      windows.push({
        sentences: sentences.slice(start, end + 1),
        introduces: end === sentences.length - 1 && /:\s*$/.test(sentences[end] ?? ""),
      });
  }
  return windows;
}

/**
 * Whether a sentence opens on the subject ("A thunk is …", "The Unified … Format (URDF) is …"):
 * its first words name at least half of the subject's weight, then a verb saying what it is.
 */
function definesSubject(
  sentence: string,
  subjectTerms: string[],
  question: QuestionWords,
): boolean {
  const weightOf = (terms: string[]) =>
    terms.reduce((total, term) => total + (question.weight.get(term) ?? 0), 0);
  const whole = weightOf(subjectTerms);
  const { opening, heads } = openingOf(sentence);
  for (const [index, head] of heads.entries()) {
    const count = index + 1;
    // A label ("Note:") before X opens an aside, not a definition.
    if (/:$/.test(opening[count - 1] ?? "")) return false;
    const named = weightOf(subjectTerms.filter((term) => head.includes(term)));
    if (named > 0 && named * 2 >= whole)
      return DEFINITION_VERB.test(opening.slice(count).join(" "));
  }
  return false;
}

/**
 * A sentence's words after an opening article, and the analysed terms of its first one to eight
 * words: the book's sentences are weighed for every "what is X" asked, so they are analysed once.
 */
function openingOf(sentence: string): { opening: string[]; heads: string[][] } {
  return cachedIn(sentenceOpenings, sentence, MAX_OPENINGS, (text) => {
    const words = text.replace(/[*`]/g, "").split(/\s+/);
    const opening = words[0] && /^(?:an?|the)$/i.test(words[0]) ? words.slice(1) : words;
    const heads: string[][] = [];
    for (let count = 1; count <= Math.min(8, opening.length); count++)
      heads.push(analyze(opening.slice(0, count).join(" ")));
    return { opening, heads };
  });
}

const sentenceOpenings = new Map<string, { opening: string[]; heads: string[][] }>();
const MAX_OPENINGS = 20_000;

/** Text as compared with a selection: lower case, letters and digits only. */
function flat(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * At most `size` consecutive sentences (or list items) of a reader's selection: those holding the
 * question's `topicTerms`, each of them at least one, the most of the terms first, then the
 * earlier. With no topic terms ("explain this"), the sentences sharing the most words with the
 * rest of the selection, which is where a passage states its point. Null when nothing matches.
 */
export function quoteSelection(text: string, topicTerms: string[], size = 3): string | null {
  const units = chunkBlocks(text).flatMap((block) =>
    block.kind === "paragraph"
      ? block.text.split(SENTENCE_END)
      : block.kind === "list"
        ? block.items.map((item) => item.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ""))
        : [],
  );
  const terms = units.map(termsOf);
  const topic = new Set(topicTerms);
  const frequency = new Map<string, number>();
  for (const set of terms)
    for (const term of set) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  let best: { start: number; end: number; score: number } | undefined;
  for (let start = 0; start < units.length; start++)
    for (let end = start; end < Math.min(units.length, start + size); end++) {
      const window = terms.slice(start, end + 1);
      const held = new Set(window.flatMap((set) => [...set]));
      let score: number;
      if (topic.size > 0) {
        if (!window.every((set) => [...topic].some((term) => set.has(term)))) continue;
        const share = (set: Set<string>) =>
          [...topic].filter((term) => set.has(term)).length / topic.size;
        // The most of the topic, then sentences each carrying more of it, the earlier, the longer.
        const density = window.reduce((total, set) => total + share(set), 0) / window.length;
        score = share(held) + 0.1 * density - 0.001 * start + 0.0001 * window.length;
      } else
        score =
          [...held].reduce((total, term) => total + (frequency.get(term) ?? 1) - 1, 0) -
          0.01 * start;
      if (!best || score > best.score) best = { start, end, score };
    }
  return best ? units.slice(best.start, best.end + 1).join(" ") : null;
}
