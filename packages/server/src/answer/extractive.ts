import { analyze, analyzeQuery } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { sum } from "../util/numbers.ts";

/**
 * The answer given when no language model is configured: the best contiguous passage of the
 * retrieved chunks, quoted as it stands and followed by the [n] marker of its source (n = position
 * in `results`, starting at 1), featured-snippet style. A second short passage from another source
 * is added only when the first covers little of the question.
 *
 * A passage is a window of 1–4 consecutive sentences under one heading of one chunk. Windows are
 * scored by:
 *
 *   coverage   the question's words the window contains, each weighted by how rare it is among the
 *              candidate chunks (log(1 + (N + 1) / (df + 0.5))), so "urdf" outweighs "ros";
 *              words only found in a list or code block the window brings along count half;
 *   + 0.15 ×   share of the question's words in the heading path above the window;
 *   + 0.20 ×   the chunk's calibrated similarity score, + 0.04 for ranking first (less further down);
 *   + 0.35 ×   strength of a defining sentence ("X is …", "X (…) is a …", "X stands for …", "… is
 *              called X", "The word X means …") opening the window, for "what is X" questions
 *              (0.10 when it is inside); a sentence that only spells out an acronym's words
 *              counts 0.6, one that also names the acronym 1;
 *   − 0.03     per sentence without any question word, and per paragraph break crossed;
 *   − 0.08     for a single sentence when its paragraph goes on (2–4 sentences read better).
 *
 * In a "what is X" question the words outside X ("… in humanoid walking") weigh 0.3: they place
 * the term, and the sentence defining it rarely repeats them.
 *
 * Definitions sit where a retrieved chunk may not be: at the opening of the page about X, at the
 * start of the section about X, in the glossary. Given the pages' chunks (`pageChunks`), a "what
 * is X" question also weighs the opening chunk of a result's page whose title names X, the first
 * chunk of the section whose heading names X when a result continues it, and the chunk of a
 * glossary page holding X's entry. A chunk quoted this way is returned in `extraSources` and cited
 * after the results.
 *
 * A "how do I" passage that stops before the fix ("… so the node freezes. Never call …") runs on
 * to the sentence giving it ("Instead, use …") when that follows within three sentences of the
 * same text.
 *
 * The weights were set by reading answers to the sample book's definition and how-to questions
 * (examples/robotics-primer/questions.jsonl, rows a001–a020), not by fitting a number.
 *
 * What is never quoted: heading lines (Markdown `#` lines or a short unpunctuated line standing
 * alone before other text), sentences of fewer than four words ("Symptom."), table rows, images,
 * admonition markers ("Note:"), a sentence ending in ":" whose list or code block is not there,
 * and a window opening with a reference to something before it ("This", "It", "As shown above")
 * or after it ("The example below") that it does not include.
 */

export interface ExtractiveAnswer {
  text: string;
  /** 1-based source numbers the answer cites. */
  cited: number[];
  /**
   * Chunks the answer quotes that are not among the results (see `pageChunks`), in citation
   * order: the first is cited as [results.length + 1 + citationOffset], the next one after it.
   */
  extraSources: RetrievedChunk[];
}

export interface ExtractiveOptions {
  /** Most sentences in one passage; default 4. */
  maxSentences?: number;
  /** Most passages (each from a different source); default 2. */
  maxPassages?: number;
  /** Added to every [n] marker, for answers whose sources follow other citations; default 0. */
  citationOffset?: number;
  /**
   * The chunks of a page in page order. With it, a definition question also weighs the chunks of
   * the results' pages where a definition usually sits (`definingChunks`).
   */
  pageChunks?: (filePath: string) => ChunkRecord[];
}

export function extractiveAnswer(
  question: string,
  results: RetrievedChunk[],
  options: ExtractiveOptions = {},
): ExtractiveAnswer {
  const maxSentences = options.maxSentences ?? 4;
  const maxPassages = options.maxPassages ?? 2;
  const offset = options.citationOffset ?? 0;
  const candidates: Candidate[] = results.map((result, rank) => ({
    result,
    parsed: parsedChunk(result.chunk),
    rank,
  }));
  const query = weighQuestion(
    question,
    candidates.map((candidate) => candidate.parsed),
  );
  if (query.subject && options.pageChunks)
    candidates.push(...definingChunks(query, results, options.pageChunks));
  const passages: Passage[] = [];
  const best = bestWindow(query, candidates, { maxSentences, rankCount: results.length });
  const first = best && query.howTo ? throughTheFix(best, candidates) : best;
  if (first) {
    passages.push(first);
    if (maxPassages > 1 && first.coverage < 0.5) {
      const second = bestWindow(query, candidates, {
        maxSentences: 2,
        rankCount: results.length,
        exclude: first,
      });
      if (second && second.newCoverage >= 0.2) passages.push(second);
    }
  } else {
    const opening = openingPassage(candidates);
    if (opening) passages.push(opening);
  }
  const extraSources: RetrievedChunk[] = [];
  const citationOf = (passage: Passage) => {
    const candidate = candidates[passage.source];
    if (passage.source < results.length || !candidate) return passage.source + 1 + offset;
    if (!extraSources.includes(candidate.result)) extraSources.push(candidate.result);
    return results.length + extraSources.indexOf(candidate.result) + 1 + offset;
  };
  const citations = passages.map(citationOf);
  return {
    text: passages
      .map((passage, index) => render(passage.units, citations[index] ?? null))
      .join("\n\n"),
    cited: [...new Set(citations)],
    extraSources,
  };
}

/** The best passage of a plain text (the reader's selection), or null when nothing matches. */
export interface TextPassage {
  text: string;
  /** Weighted share of the question's words the passage contains (0..1). */
  coverage: number;
}

/**
 * Quotes at most `maxSentences` consecutive sentences of `text`: the ones that contain the
 * question's `topicTerms`, without the sentences around them that do not (the reader already has
 * the whole text in front of them). With no topic terms ("explain this"), the sentences sharing the
 * most words with the rest of the text, which is where a passage states its point.
 */
export function quotePassage(
  text: string,
  topicTerms: string[],
  options: { maxSentences?: number } = {},
): TextPassage | null {
  const maxSentences = options.maxSentences ?? 3;
  const parsed = parseText(text);
  if (parsed.units.length === 0) return null;
  if (topicTerms.length === 0) {
    const frequency = new Map<string, number>();
    for (const unit of parsed.units)
      for (const term of unit.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    let best: { start: number; end: number; score: number } | null = null;
    forEachWindow(parsed.units, maxSentences, (start, end) => {
      let score = -start * 0.01;
      const seen = new Set<string>();
      for (let index = start; index <= end; index++)
        for (const term of parsed.units[index]?.terms ?? [])
          if (!seen.has(term)) {
            seen.add(term);
            score += (frequency.get(term) ?? 1) - 1;
          }
      if (!best || score > best.score) best = { start, end, score };
    });
    const chosen = best as { start: number; end: number } | null;
    if (!chosen) return null;
    return { text: render(parsed.units.slice(chosen.start, chosen.end + 1), null), coverage: 0 };
  }
  const weights = new Map(topicTerms.map((term) => [term, 1]));
  const total = topicTerms.length;
  let best: { start: number; end: number; score: number; coverage: number } | null = null;
  forEachWindow(parsed.units, maxSentences, (start, end) => {
    const units = parsed.units.slice(start, end + 1);
    // Quote only sentences that say something about the question.
    if (units.some((unit) => !anyOf(weights, unit.terms))) return;
    const coverage = coverageOf(weights, total, units);
    // Sentences that each carry more of the topic first, then the earlier passage.
    const density = sum(units.map((unit) => coverageOf(weights, total, [unit]))) / units.length;
    const score = coverage + 0.1 * density - 0.001 * start + 0.0001 * units.length;
    if (!best || score > best.score) best = { start, end, score, coverage };
  });
  const chosen = best as { start: number; end: number; coverage: number } | null;
  if (!chosen) return null;
  return {
    text: render(parsed.units.slice(chosen.start, chosen.end + 1), null),
    coverage: chosen.coverage,
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing a chunk into quotable units

interface Unit {
  /** The sentence or list item as shown, Markdown list marker included for items. */
  text: string;
  terms: Set<string>;
  /** Terms of the list or code block the unit brings along. */
  attachmentTerms: Set<string>;
  /** The list or code block introduced by a sentence ending in ":" (or "below", "as follows"). */
  attachment: string | null;
  /** Index of the heading the unit sits under inside its chunk (0 = the chunk's own heading). */
  section: number;
  /** Units of one run follow each other in the text with nothing unquotable in between. */
  run: number;
  paragraph: number;
  item: boolean;
  /** Opens with a word that points at a sentence before it ("This", "It", "However"). */
  pointsBack: boolean;
  /**
   * What the sentence defines, when it reads "X is …", "X — …" or "… is called X": the words of X,
   * and separately those of each parenthesis in it ("The Unified Robot Description Format (URDF)").
   */
  definienda: Set<string>[];
  appositions: Set<string>[];
  /** The first few words, for sentences that open a paragraph by naming their subject. */
  leadTerms: Set<string>;
  /** The opening words include a parenthesis: "A lidar (light detection and ranging) measures …". */
  expandsLead: boolean;
  opensParagraph: boolean;
  /** Reads as an instruction ("Use …", "Run …", "Instead, call …"). */
  actionable: boolean;
}

interface ParsedChunk {
  headingTerms: Set<string>[];
  units: Unit[];
  allTerms: Set<string>;
}

type Block =
  | { kind: "heading"; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; items: string[] }
  | { kind: "code"; lines: string[]; fence: string }
  | { kind: "table"; rows: string[] }
  | { kind: "other" };

// A sentence ends at . ! or ? before a capital, a digit, a quote, or a lower-case word that is not
// preceded by an abbreviation (code names start sentences too: "tf2 is the ROS 2 library …").
const SENTENCE =
  /(?<=[.!?])(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|fig|no|resp|incl|min|max|ca)\.)(?<!\b[A-Za-z]\.)\s+(?=[A-Za-z0-9`"'([*_])/;
const FENCE = /^\s*(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+\S/;
const ADMONITION = /^(?:note|tip|info|warning|caution|danger|important)\s*:\s+/i;
const POINTS_BACK =
  /^["'(]*(?:this(?! (?:chapter|page|section|book|guide|tutorial)\b)|that|these|those|it|its|they|them|their|such|here|then|also|however|but|so|thus|therefore|hence|otherwise|instead|similarly|likewise|both|the former|the latter|the above|the same|as (?:shown|seen|mentioned|described|noted|explained) (?:above|before|earlier)|as above|(?:for|in|with|by|from|after|because of) (?:this|that|these|those|it|them)|in (?:either|both) cases?)\b/i;
const POINTS_FORWARD =
  /\b(?:(?:shown|listed|given|described|example|code|snippet|command|commands|table|steps?|file|output) below|below:|the following|as follows|this (?:example|snippet|code|file|command|listing))\b|^["'(]*here(?:'s| is| are)\b/i;
// "X is, quite simply, a function …": a short aside between the copula and the definition.
const COPULA =
  /\s(?:(?:is|are)(?:,[^,]{1,30},)?|stands for|means|refers to|describes)\s|\s[—–]\s|\s-{1,2}\s/;
const CALLED = /\b(?:is|are) (?:called|known as|named|termed)\s+(.+)$/i;
/** "The callback is called when …": the verb call, not a name. */
const CALLED_VERB =
  /^(?:once|when|whenever|while|by|from|with|after|before|on|in|at|every|each|only|again|twice|back|for|if|to|periodically|repeatedly)\b/i;
const ACTIONABLE =
  /^(?:instead,? |to [^,]{3,60}, )?(?:use|run|call|add|set|pass|put|declare|install|source|build|create|write|launch|start|open|edit|give|keep|make|check|try|remove|replace|define|register|list|spawn|load|record|store|avoid|never|always|do not|don't)\b/i;
const PROHIBITION = /^(?:never|avoid|do not|don't)\b/i;
/** How many sentences past a how-to passage its fix may sit. */
const FIX_LOOKAHEAD = 3;
const HOW_TO = /^(?:how (?:do|can|should|would|could) (?:i|you|we)|how to)\b/i;
const MIN_WORDS = 4;
const MAX_CODE_LINES = 15;
const MAX_LIST_ITEMS = 8;

// Chunks repeat across questions; parsing them once saves most of the work.
const parsedChunks = new Map<string, ParsedChunk>();

function parsedChunk(chunk: RetrievedChunk["chunk"]): ParsedChunk {
  const key = `${chunk.id}:${chunk.contentHash}`;
  let parsed = parsedChunks.get(key);
  if (!parsed) {
    parsed = parseText(chunk.text, chunk.headingPath.join(" "));
    if (parsedChunks.size >= 5_000) parsedChunks.clear();
    parsedChunks.set(key, parsed);
  }
  return parsed;
}

function parseText(text: string, heading = ""): ParsedChunk {
  const blocks = toBlocks(text);
  const headingTerms = [new Set(analyze(heading))];
  const units: Unit[] = [];
  let section = 0;
  let run = 0;
  for (const [position, block] of blocks.entries()) {
    if (block.kind === "heading") {
      section++;
      run++;
      headingTerms[section] = new Set([...(headingTerms[0] ?? []), ...analyze(block.text)]);
      continue;
    }
    if (block.kind === "list") {
      for (const [order, item] of block.items.entries()) {
        const unit = unitOf(item, {
          section,
          run,
          paragraph: position,
          item: true,
          first: order === 0,
        });
        if (unit) units.push(unit);
      }
      continue;
    }
    if (block.kind !== "paragraph") {
      run++;
      continue;
    }
    const next = blocks[position + 1];
    const attachable =
      next && (next.kind === "list" || next.kind === "code" || next.kind === "table") ? next : null;
    const sentences = block.text
      .replace(ADMONITION, "")
      .split(SENTENCE)
      .map((sentence) => sentence.trim())
      .filter(Boolean);
    for (const [order, sentence] of sentences.entries()) {
      const last = order === sentences.length - 1;
      const introduces = sentence.endsWith(":") || POINTS_FORWARD.test(sentence);
      if (introduces && !(last && attachable)) {
        // Its list or code is not there to follow it: the sentence cannot stand in an answer, and
        // the text around it does not read on across it.
        if (sentence.endsWith(":") || startsWith(sentence, POINTS_FORWARD)) {
          run++;
          continue;
        }
      }
      const unit = unitOf(sentence, {
        section,
        run,
        paragraph: position,
        item: false,
        first: order === 0,
      });
      if (!unit) continue;
      if (introduces && last && attachable) {
        unit.attachment = renderBlock(attachable);
        unit.attachmentTerms = new Set(analyze(blockText(attachable)));
        blocks[position + 1] = { kind: "other" };
        // What follows the list or code is a new run: it does not continue the sentence.
        units.push(unit);
        run++;
        continue;
      }
      units.push(unit);
    }
  }
  const allTerms = new Set<string>();
  for (const terms of headingTerms) for (const term of terms ?? []) allTerms.add(term);
  for (const unit of units) {
    for (const term of unit.terms) allTerms.add(term);
    for (const term of unit.attachmentTerms) allTerms.add(term);
  }
  return { headingTerms, units, allTerms };
}

function startsWith(sentence: string, pattern: RegExp): boolean {
  const match = pattern.exec(sentence);
  return match !== null && match.index < 25;
}

function unitOf(
  raw: string,
  place: { section: number; run: number; paragraph: number; item: boolean; first: boolean },
): Unit | null {
  let text = raw
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\s+/g, " ")
    .trim();
  // Bold lead-ins ("Symptom. ros2 run fails …") and admonition titles ("Open a new terminal
  // after building: Source the workspace …") are labels, not part of the sentence.
  const leadIn =
    /^[A-Z][\w'’-]*(?: [\w'’-]+){0,2}\. (?=\S)/.exec(text) ??
    (place.first ? /^[A-Z][^:.!?]{2,60}: (?=[A-Z])/.exec(text) : null);
  if (
    leadIn &&
    text.slice(leadIn[0].length).split(" ").length >= MIN_WORDS &&
    leadIn[0].split(" ").length <= 9
  )
    text = text.slice(leadIn[0].length);
  const prose = place.item ? text.replace(/^(?:[-*+]|\d{1,3}[.)])\s+/, "") : text;
  if (prose.split(" ").length < MIN_WORDS || prose.length > 600) return null;
  // A cross-reference ("See QoS profiles.") says nothing by itself.
  if (/^see\b/i.test(prose)) return null;
  return {
    text,
    terms: new Set(analyze(prose)),
    attachmentTerms: new Set(),
    attachment: null,
    section: place.section,
    run: place.run,
    paragraph: place.paragraph,
    item: place.item,
    pointsBack: POINTS_BACK.test(prose),
    definienda: definiendaOf(prose),
    appositions: appositionsOf(prose),
    actionable: ACTIONABLE.test(prose),
    leadTerms: new Set(analyze(prose.split(" ").slice(0, 8).join(" "))),
    expandsLead: prose.split(" ").slice(0, 8).join(" ").includes("("),
    opensParagraph: place.first,
  };
}

/**
 * What a sentence defines: "X is …", "X (…) is …", "X — …", "X stands for …", "… is called X".
 * "Parameters are named configuration values …" reads both ways, so both readings are kept.
 */
function definiendaOf(sentence: string): Set<string>[] {
  const subjects: string[] = [];
  const called = CALLED.exec(sentence);
  if (called?.[1] && !CALLED_VERB.test(called[1]))
    subjects.push(
      called[1]
        .split(/[,;.:]/)[0]
        ?.split(" ")
        .slice(0, 8)
        .join(" ") ?? "",
    );
  const copula = COPULA.exec(sentence);
  if (copula && copula.index <= 120) subjects.push(sentence.slice(0, copula.index));
  return subjects.flatMap((subject) => {
    const outside = subject
      .replace(/\([^)]*\)?/g, " ")
      // "In ROS 2, a node is …" still defines a node ("In these frameworks, …" defines it for
      // something else); "The word "thunk" means …" defines thunk.
      .replace(/^\s*(?:in|for|within) (?!(?:this|these|that|those|such)\b)[^,]{1,40}, /i, "")
      .replace(/^\s*the (?:word|term|name|phrase|acronym|abbreviation)\s+/i, "");
    // A clause before the subject ("When the robot moves, the odom frame is …") is not a definition.
    if (outside.trim().split(/\s+/).length > 8 || outside.includes(",")) return [];
    const parentheses = [...subject.matchAll(/\(([^)]*)\)?/g)].map((match) => match[1] ?? "");
    return [outside, ...parentheses]
      .map((part) => new Set(analyzeQuery(part).words))
      .filter((terms) => terms.size > 0);
  });
}

/** The nouns an apposition defines: "ROS 2 offers services, a remote procedure call pattern". */
function appositionsOf(sentence: string): Set<string>[] {
  const found: Set<string>[] = [];
  for (const match of sentence.matchAll(/([\p{L}\p{N}_-]+), (?:an?|the) /gu)) {
    const terms = new Set(analyzeQuery(match[1] ?? "").words);
    if (terms.size > 0) found.push(terms);
  }
  return found;
}

function toBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  let paragraph: string[] = [];
  let list: string[] | null = null;
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join(" ") });
    if (list) blocks.push({ kind: "list", items: list });
    paragraph = [];
    list = null;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const fence = FENCE.exec(line)?.[1];
    if (fence) {
      flush();
      const code: string[] = [line.trim()];
      let closed = false;
      for (index++; index < lines.length; index++) {
        const inner = lines[index] ?? "";
        code.push(inner);
        const closing = /^(`{3,}|~{3,})$/.exec(inner.trim())?.[1];
        if (closing && closing[0] === fence[0] && closing.length >= fence.length) {
          closed = true;
          break;
        }
      }
      if (!closed) code.push(fence);
      blocks.push({ kind: "code", lines: code.slice(1, -1), fence: code[0] ?? fence });
      continue;
    }
    const trimmed = line.trim();
    if (!trimmed) {
      flush();
      continue;
    }
    if (/^#{1,6}\s/.test(trimmed)) {
      flush();
      blocks.push({
        kind: "heading",
        text: trimmed.replace(/^#+\s*/, "").replace(/\s*\{#[^}]*\}\s*$/, ""),
      });
      continue;
    }
    if (trimmed.startsWith("|") || trimmed.includes(" | ")) {
      flush();
      const previous = blocks[blocks.length - 1];
      if (previous?.kind === "table") previous.rows.push(trimmed);
      else blocks.push({ kind: "table", rows: [trimmed] });
      continue;
    }
    if (/^!\[/.test(trimmed) || /^:::/.test(trimmed)) {
      flush();
      blocks.push({ kind: "other" });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const indented = /^\s{2,}/.test(line);
      if (list && indented) {
        list[list.length - 1] = `${list[list.length - 1]}\n${line.replace(/\s+$/, "")}`;
        continue;
      }
      if (paragraph.length > 0) flush();
      list ??= [];
      list.push(trimmed);
      continue;
    }
    if (list) {
      // A continuation line of the last item.
      list[list.length - 1] = `${list[list.length - 1]} ${trimmed}`;
      continue;
    }
    paragraph.push(trimmed);
  }
  flush();
  // A short line with no closing punctuation, standing alone before more text, is a heading.
  for (const [index, block] of blocks.entries()) {
    if (
      block.kind === "paragraph" &&
      index < blocks.length - 1 &&
      block.text.split(" ").length <= 10 &&
      (!/[.!?:;,)"']$/.test(block.text) ||
        (block.text.split(" ").length < MIN_WORDS && blocks[index + 1]?.kind !== "paragraph"))
    ) {
      blocks[index] = { kind: "heading", text: block.text };
    }
  }
  return blocks;
}

function blockText(block: Block): string {
  if (block.kind === "list") return block.items.join(" ");
  if (block.kind === "code") return block.lines.join(" ");
  if (block.kind === "table") return block.rows.join(" ");
  return "";
}

/** A table as valid Markdown: its first row is the header; at most MAX_LIST_ITEMS rows. */
function renderTable(rows: string[]): string {
  const cells = (row: string) =>
    row
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((cell) => cell.trim());
  const body = rows.slice(1).filter((row) => !/^\|?\s*:?-{3,}/.test(row));
  const header = cells(rows[0] ?? "");
  const line = (values: string[]) =>
    `| ${header.map((_, index) => values[index] ?? "").join(" | ")} |`;
  const shown = body.slice(0, MAX_LIST_ITEMS).map((row) => line(cells(row)));
  if (body.length > MAX_LIST_ITEMS) shown.push(line(header.map(() => "…")));
  return [line(header), `| ${header.map(() => "---").join(" | ")} |`, ...shown].join("\n");
}

function renderBlock(block: Block): string {
  if (block.kind === "table") return renderTable(block.rows);
  if (block.kind === "code") {
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(block.fence)?.[1] ?? "```";
    const lines =
      block.lines.length > MAX_CODE_LINES
        ? [...block.lines.slice(0, MAX_CODE_LINES), "…"]
        : block.lines;
    return [block.fence, ...lines, fenceMark].join("\n");
  }
  if (block.kind === "list") {
    const items = block.items.slice(0, MAX_LIST_ITEMS);
    if (block.items.length > MAX_LIST_ITEMS) {
      const ordered = /^\d/.test(block.items[0] ?? "");
      items.push(ordered ? `${MAX_LIST_ITEMS + 1}. …` : "- …");
    }
    return items.join("\n");
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// Scoring windows

interface WeightedQuestion {
  weights: Map<string, number>;
  /** Sum of the weights of the words some candidate contains: what an answer could cover. */
  total: number;
  /** The X of "what is X" questions, null for other questions. */
  subject: Map<string, number> | null;
  subjectTotal: number;
  /** Every word of the subject, qualifiers included ("ros", "2" in "a ROS 2 service"). */
  subjectWords: Set<string>;
  /** Matches the spelled-out form of a subject written in capitals ("ZMP" → zero moment point). */
  acronym: RegExp | null;
  /** "How do I …" questions: instructions and code answer them better than descriptions. */
  howTo: boolean;
}

/** A chunk the answer may quote: a retrieval result, or a chunk of a result's page. */
interface Candidate {
  result: RetrievedChunk;
  parsed: ParsedChunk;
  /** Rank of the result it is (or whose page it belongs to), from 0. */
  rank: number;
}

interface Passage {
  /** Index in the candidates. */
  source: number;
  units: Unit[];
  coverage: number;
  newCoverage: number;
  score: number;
}

const DEFINITION_QUESTION =
  /^(?:what|who)(?:'s|\s+(?:is|are|was|were))\s+(?:an?\s+|the\s+)?(.+?)\??$|^what\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for|do)\b.*$|^(?:define|definition\s+of|meaning\s+of|what\s+is\s+meant\s+by)\s+(?:an?\s+|the\s+)?(.+?)\??$/i;
/** Nouns that name what kind of thing a term is, not which: "a reducer function", "the URDF file". */
const GENERIC_HEADS = new Set(analyze("function file object value type class pattern concept"));
/** Question words that frame a definition question rather than name its topic. */
const FRAME_TERMS = new Set(
  analyze("mean meaning means stand stands used use defined definition define meant refer"),
);

function weighQuestion(question: string, sources: ParsedChunk[]): WeightedQuestion {
  const normalized = question.trim().replace(/\s+/g, " ");
  const words = analyzeQuery(normalized).words;
  const count = sources.length;
  const idf = (term: string) => {
    const df = sources.filter((source) => source.allTerms.has(term)).length;
    return df === 0 ? 0 : Math.log(1 + (count + 1) / (df + 0.5));
  };
  const definition = DEFINITION_QUESTION.exec(normalized);
  const subjectText = definition
    ? (definition[1] ?? definition[2] ?? definition[3] ?? "")
        .replace(/\s+(?:used|in|for|within|inside|when|on)\b.*$/i, "")
        .replace(/[?.!]+$/, "")
        .replace(/\s+(?:file|files|thing|concept|term|idea)$/i, "")
    : "";
  const subjectTerms =
    subjectText && !/\bdifference\b|\bbetween\b/i.test(normalized) ? analyze(subjectText) : [];
  const weights = new Map<string, number>();
  for (const term of words) {
    if (definition && FRAME_TERMS.has(term)) continue;
    const inSubject = subjectTerms.includes(term);
    const weight = idf(term) * (subjectTerms.length === 0 || inSubject ? 1 : 0.3);
    if (weight > 0) weights.set(term, weight);
  }
  // Subject words every candidate contains ("ROS 2" in "a ROS 2 service") qualify the subject
  // rather than name it.
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
  return {
    weights,
    total: sum(weights.values()),
    subject: subject && subject.size > 0 ? subject : null,
    subjectTotal: subject ? sum(subject.values()) : 0,
    subjectWords: new Set(subjectTerms),
    howTo: HOW_TO.test(normalized),
    acronym: /^[A-Z]{2,6}$/.test(subjectText.trim())
      ? new RegExp(
          `\\b${[...subjectText.trim().toLowerCase()].join("[\\p{L}-]*[\\s-]+")}[\\p{L}-]*`,
          "iu",
        )
      : null,
  };
}

function bestWindow(
  query: WeightedQuestion,
  candidates: Candidate[],
  options: { maxSentences: number; rankCount: number; exclude?: Passage },
): Passage | null {
  if (query.total === 0) return null;
  const excluded = new Set(options.exclude?.units.map((unit) => normalize(unit.text)) ?? []);
  const alreadyCovered = new Set<string>();
  for (const unit of options.exclude?.units ?? [])
    for (const term of [...unit.terms, ...unit.attachmentTerms]) alreadyCovered.add(term);
  let best: Passage | null = null;
  for (const [position, candidate] of candidates.entries()) {
    if (options.exclude && position === options.exclude.source) continue;
    const source = candidate.parsed;
    const rankScore =
      0.2 * candidate.result.similarityScore +
      0.04 * (1 - candidate.rank / Math.max(1, options.rankCount));
    forEachWindow(source.units, options.maxSentences, (start, end) => {
      const units = source.units.slice(start, end + 1);
      const opener = units[0];
      // A window never opens on a sentence that leans on the one before, nor in the middle of a list.
      if (!opener || opener.pointsBack || (opener.item && !opener.opensParagraph)) return;
      if (units.some((unit) => excluded.has(normalize(unit.text)))) return;
      // A second passage stays short: no list, code or table of its own.
      if (options.exclude && units.some((unit) => unit.attachment)) return;
      const covered = new Map<string, number>();
      // The heading above a passage is part of what it says ("Building with colcon").
      for (const term of source.headingTerms[opener.section] ?? []) covered.set(term, 0.5);
      for (const unit of units) {
        for (const term of unit.attachmentTerms)
          covered.set(term, Math.max(covered.get(term) ?? 0, 0.5));
        for (const term of unit.terms) covered.set(term, 1);
      }
      let coverage = 0;
      let newCoverage = 0;
      for (const [term, weight] of query.weights) {
        const share = covered.get(term) ?? 0;
        coverage += share * weight;
        if (!alreadyCovered.has(term)) newCoverage += share * weight;
      }
      coverage /= query.total;
      newCoverage /= query.total;
      if (
        !units.some(
          (unit) => anyOf(query.weights, unit.terms) || anyOf(query.weights, unit.attachmentTerms),
        )
      )
        return;
      const heading = shareOf(
        query.weights,
        query.total,
        source.headingTerms[opener.section] ?? new Set(),
      );
      let score = coverage + 0.15 * heading + rankScore;
      if (query.subject) {
        // A defining sentence that leans on the one before it ("For this ROS 2 offers services, a
        // …") cannot open the passage; with its one sentence of context it still counts as opening.
        const second = units[1];
        const start = Math.max(
          definitionStrength(query, opener),
          second?.pointsBack ? definitionStrength(query, second) : 0,
        );
        score += 0.35 * start;
        let inside = 0;
        for (const unit of units.slice(1))
          inside = Math.max(inside, definitionStrength(query, unit));
        score += 0.1 * inside;
      }
      if (
        query.howTo &&
        units.some((unit) => unit.actionable || unit.attachment?.startsWith("```"))
      )
        score += 0.1;
      for (const [index, unit] of units.entries()) {
        if (!anyOf(query.weights, unit.terms) && !anyOf(query.weights, unit.attachmentTerms))
          score -= 0.03;
        const previous = units[index - 1];
        if (previous && previous.paragraph !== unit.paragraph) score -= 0.03;
      }
      const following = source.units[end + 1];
      if (
        units.length === 1 &&
        following &&
        following.paragraph === opener.paragraph &&
        following.run === opener.run
      )
        score -= 0.08;
      if (options.exclude) score = newCoverage + 0.2 * score;
      if (!best || score > best.score)
        best = { source: position, units, coverage, newCoverage, score };
    });
  }
  return best;
}

/**
 * How clearly a unit defines the question's subject: up to 1 for "X is …" where X is the subject
 * and little else ("The ros2 topic command is …" does not define "topic"), 0.5 for a paragraph
 * opening on the subject and its expansion without a copula ("A lidar (…) measures …").
 */
function definitionStrength(query: WeightedQuestion, unit: Unit): number {
  const subject = query.subject;
  if (!subject) return 0;
  let strength = 0;
  for (const terms of unit.definienda) {
    const recall = shareOf(subject, query.subjectTotal, terms);
    if (recall < 0.5) continue;
    // A generic head noun ("A thunk function is …") does not make the subject another thing.
    let matched = 0;
    let counted = 0;
    for (const term of terms) {
      if (query.subjectWords.has(term)) matched++;
      if (query.subjectWords.has(term) || !GENERIC_HEADS.has(term)) counted++;
    }
    const purity = counted === 0 ? 0 : matched / counted;
    strength = Math.max(strength, recall * purity);
  }
  for (const terms of unit.appositions) {
    // Weaker than a copula: "the robot's centre, a point …" is an aside more often than a definition.
    if (shareOf(subject, query.subjectTotal, terms) >= 0.5 && terms.size === 1)
      strength = Math.max(strength, 0.8 * shareOf(subject, query.subjectTotal, terms));
  }
  // "What does ZMP stand for?": a sentence spelling the letters out ("zero moment point"), fully
  // when it names the acronym too ("The zero moment point (ZMP) is …"), less when it only
  // mentions the words ("This page introduces the zero moment point").
  if (query.acronym?.test(`${unit.text} ${unit.attachment ?? ""}`))
    strength = Math.max(
      strength,
      [...subject.keys()].every((term) => unit.terms.has(term)) ? 1 : 0.6,
    );
  if (strength === 0 && unit.opensParagraph && unit.expandsLead)
    strength = 0.5 * shareOf(subject, query.subjectTotal, unit.leadTerms);
  return strength;
}

/** Reads as a way out ("Instead, use …", "To fix this, run …"), not only as a warning ("Never …"). */
function givesFix(unit: Unit): boolean {
  return unit.actionable && !PROHIBITION.test(unit.text.replace(/^(?:[-*+]|\d{1,3}[.)])\s+/, ""));
}

/**
 * A how-to passage that stops at the problem ("… so the node freezes forever. Never call …")
 * runs on to the sentence that gives the fix when it follows within FIX_LOOKAHEAD sentences of
 * the same passage of text.
 */
function throughTheFix(passage: Passage, candidates: Candidate[]): Passage {
  if (passage.units.some(givesFix)) return passage;
  const units = candidates[passage.source]?.parsed.units ?? [];
  const last = passage.units[passage.units.length - 1];
  const end = last ? units.indexOf(last) : -1;
  if (!last || end < 0) return passage;
  for (let index = end + 1; index <= end + FIX_LOOKAHEAD; index++) {
    const unit = units[index];
    if (!unit || unit.run !== last.run || unit.section !== last.section) break;
    if (givesFix(unit))
      return { ...passage, units: [...passage.units, ...units.slice(end + 1, index + 1)] };
  }
  return passage;
}

/** Glossary pages, by title: each of their entries defines one term. */
const GLOSSARY_TITLE = /\b(?:glossary|terminology|definitions)\b/i;
/** Most chunks of the results' pages added for a definition question. */
const MAX_DEFINING_CHUNKS = 4;

/**
 * For a definition question, the chunks of the results' pages where the definition of X usually
 * sits, when they are not among the results themselves: the opening chunk of a page whose title
 * names X ("Describing a Robot with URDF"), the first chunk of a section whose heading names X
 * when the result only continues it, and the chunk of a glossary page whose entry defines X. Each
 * is weighed as the result that led to it (same rank and similarity).
 */
function definingChunks(
  query: WeightedQuestion,
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
): Candidate[] {
  const seen = new Set(results.map((result) => result.chunk.id));
  const pages = new Map<string, ChunkRecord[]>();
  const pageOf = (filePath: string) => {
    let page = pages.get(filePath);
    if (!page) {
      page = pageChunks(filePath);
      pages.set(filePath, page);
    }
    return page;
  };
  const found: Candidate[] = [];
  for (const [rank, result] of results.entries()) {
    const { chunk } = result;
    const wanted: (ChunkRecord | undefined)[] = [];
    if (namesSubject(query, chunk.title)) wanted.push(pageOf(chunk.filePath)[0]);
    const heading = chunk.headingPath.length > 1 ? chunk.headingPath.at(-1) : undefined;
    if (heading && namesSubject(query, heading))
      wanted.push(sectionStart(pageOf(chunk.filePath), chunk));
    if (GLOSSARY_TITLE.test(chunk.title)) wanted.push(glossaryEntry(query, pageOf(chunk.filePath)));
    for (const extra of wanted) {
      if (!extra || seen.has(extra.id) || found.length >= MAX_DEFINING_CHUNKS) continue;
      seen.add(extra.id);
      found.push({ result: { ...result, chunk: extra }, parsed: parsedChunk(extra), rank });
    }
  }
  return found;
}

/** Whether a title or heading names the question's subject (all of it, or its acronym spelled out). */
function namesSubject(query: WeightedQuestion, text: string): boolean {
  if (!query.subject) return false;
  if (query.acronym?.test(text)) return true;
  return shareOf(query.subject, query.subjectTotal, new Set(analyze(text))) >= 0.5;
}

/** The first of the consecutive chunks of a page that share `chunk`'s heading path. */
function sectionStart(page: ChunkRecord[], chunk: ChunkRecord): ChunkRecord {
  const path = chunk.headingPath.join("\n");
  let start = chunk;
  for (let index = page.findIndex((other) => other.id === chunk.id) - 1; index >= 0; index--) {
    const previous = page[index];
    if (!previous || previous.headingPath.join("\n") !== path) break;
    start = previous;
  }
  return start;
}

/** The chunk of a glossary page whose entry defines the subject, if one does. */
function glossaryEntry(query: WeightedQuestion, page: ChunkRecord[]): ChunkRecord | undefined {
  let best: ChunkRecord | undefined;
  let bestStrength = 0;
  for (const chunk of page) {
    const heading = chunk.headingPath.length > 1 ? chunk.headingPath.at(-1) : undefined;
    let strength = heading && namesSubject(query, heading) ? 0.8 : 0;
    for (const unit of parsedChunk(chunk).units)
      strength = Math.max(strength, definitionStrength(query, unit));
    if (strength > bestStrength) {
      best = chunk;
      bestStrength = strength;
    }
  }
  return bestStrength >= 0.8 ? best : undefined;
}

/** Calls `visit(start, end)` for every window of 1..max consecutive units of one run. */
function forEachWindow(
  units: Unit[],
  max: number,
  visit: (start: number, end: number) => void,
): void {
  for (let start = 0; start < units.length; start++) {
    const opener = units[start];
    if (!opener) continue;
    for (let end = start; end < units.length && end - start < max; end++) {
      const unit = units[end];
      if (!unit || unit.run !== opener.run || unit.section !== opener.section) break;
      visit(start, end);
    }
  }
}

/** The opening of the first source, for questions none of whose words the passages contain. */
function openingPassage(candidates: Candidate[]): Passage | null {
  const units: Unit[] = [];
  for (const unit of candidates[0]?.parsed.units ?? []) {
    if (units.length === 0 && unit.pointsBack) continue;
    const opener = units[0];
    if (opener && (unit.run !== opener.run || units.length >= 2)) break;
    units.push(unit);
  }
  if (units.length === 0) return null;
  return { source: 0, units, coverage: 0, newCoverage: 0, score: 0 };
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** Sentences of one paragraph run on; list items and new paragraphs start a new line. */
function render(units: Unit[], citation: number | null): string {
  let text = "";
  for (const [index, unit] of units.entries()) {
    const previous = units[index - 1];
    if (previous) {
      const sameLine =
        !unit.item &&
        !previous.item &&
        !previous.attachment &&
        previous.paragraph === unit.paragraph;
      text += sameLine ? " " : unit.item && previous.item && !previous.attachment ? "\n" : "\n\n";
    }
    text += unit.text;
    if (index === units.length - 1 && citation !== null) text += ` [${citation}]`;
    if (unit.attachment) text += `\n\n${unit.attachment}`;
  }
  return text;
}

function shareOf(weights: Map<string, number>, total: number, terms: Set<string>): number {
  if (total === 0) return 0;
  let matched = 0;
  for (const [term, weight] of weights) if (terms.has(term)) matched += weight;
  return matched / total;
}

function coverageOf(weights: Map<string, number>, total: number, units: Unit[]): number {
  const terms = new Set<string>();
  for (const unit of units) for (const term of unit.terms) terms.add(term);
  return shareOf(weights, total, terms);
}

function anyOf(weights: Map<string, number>, terms: Set<string>): boolean {
  for (const term of terms) if (weights.has(term)) return true;
  return false;
}

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
