import { analyze, analyzeQuery } from "../search/analyzer.ts";
import type { RetrievedChunk } from "../search/retriever.ts";
import {
  blocksOf,
  blockText,
  type ChunkBlock,
  chunkBlocks,
  isSeparatorRow,
  MIN_WORDS,
  renderBlock,
  tableCells,
} from "../store/chunk-blocks.ts";
import { cachedIn } from "../util/bounded-cache.ts";
import { READING_LIST } from "../util/reading-list.ts";

/**
 * A chunk parsed into quotable units (sentences and list items, with what each one defines,
 * points back to or brings along), windows of consecutive units, and their rendering.
 */

export interface Unit {
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
  /**
   * Opens with a word that points at a sentence before it ("This", "It", "However"), or adds to
   * it ("In addition", "Moreover", "And").
   */
  pointsBack: boolean;
  /**
   * What the sentence defines, when it reads "X is …", "X — …" or "… is called X": the words of X,
   * and separately those of each parenthesis in it ("The Unified Robot Description Format (URDF)").
   */
  definienda: Named[];
  appositions: Named[];
  opensParagraph: boolean;
  /** Reads as an instruction ("Use …", "Run …", "Instead, call …"). */
  actionable: boolean;
}

/** The words a sentence defines: their terms, and each plain word's form by its term. */
export interface Named {
  terms: Set<string>;
}

export interface ParsedChunk {
  headingTerms: Set<string>[];
  /** Each section's own heading: the chunk's last heading, then the heading lines inside it. */
  headings: string[];
  units: Unit[];
  allTerms: Set<string>;
}

// A sentence ends at . ! or ? before a capital, a digit, a quote, or a lower-case word that is not
// preceded by an abbreviation (code names start sentences too: "tf2 is the ROS 2 library …"). A
// single letter before the point is an initial ("J. Smith"), unless it is a unit after a number
// ("… a forearm of 0.30 m. Its DH table is:").
const SENTENCE =
  /(?<=[.!?])(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|fig|no|resp|incl|min|max|ca)\.)(?<!(?<!\d )\b[A-Za-z]\.)\s+(?=[A-Za-z0-9`"'([*_])/;

const ADMONITION = /^(?:note|tip|info|warning|caution|danger|important)\s*:\s+/i;
const POINTS_BACK =
  /^["'(]*(?:this(?! (?:chapter|page|section|book|guide|tutorial)\b)|that|these|those|it|its|they|them|their|such|here|then|also|however|but|so|thus|therefore|hence|otherwise|instead|similarly|likewise|both|the former|the latter|the above|the same|in addition|additionally|furthermore|moreover|besides|conversely|nevertheless|nonetheless|on the other hand|and|or|nor|yet(?=,)|still(?=,)|others|as such|as with (?:the|this|that|these|those|several|other|many)|as (?:shown|seen|mentioned|described|noted|explained) (?:above|before|earlier)|as above|(?:for|in|with|by|from|after|because of) (?:this|that|these|those|it|them)|in (?:either|both) cases?|(?:[a-z]+ ){1,3}of (?:this|that|these|those|them)(?! (?:page|chapter|section|book|guide|tutorial)\b))\b/i;
/**
 * A paragraph going on from the code or list before it, lower case: "can be tested like:" after
 * the slice it tests. (A lower-case opening that is a name, "useSelector accepts …", "npm install
 * …", is not one of these words.)
 */
const CONTINUES =
  /^(?:can|could|will|would|should|must|may|might|is|are|was|were|has|have|had|does|do|did|be|been|which|who|whose|whereas|than|plus|because|since|unless|until|whether|as well)\b/;
/** A gerund acting on what came before: "Handling this correctly would require …". */
const ACTS_ON_BEFORE = /^["'(]*[A-Z]\w+ing (?:this|that|these|those|it|them)\b/;
const POINTS_FORWARD =
  /\b(?:(?:shown|listed|given|described|example|code|snippet|command|commands|table|steps?|file|output) below|below:|the following|as follows|this (?:example|snippet|code|file|command|listing))\b|^["'(]*here(?:'s| is| are)\b/i;
/** Ends on a letter or digit, with no full stop: a sentence the code after it completes. */
const ENDS_UNSTOPPED = /[\p{L}\p{N}]$/u;
/** Opens by naming code as "the example", "the code", "the snippet" (the one just shown). */
const NAMES_CODE =
  /^["'(]*the (?:above |previous |preceding )?(?:example|code|snippet|listing|program|sample|output)\b/i;
/** A label of a few words ending in a full stop: "Causes and fixes.", "Common mistakes." */
const LIST_LABEL = /^[A-Z][\w'’-]*(?: [\w'’-]+){0,3}\.$/;
// "X is, quite simply, a function …": a short aside between the copula and the definition.
const COPULA =
  /\s(?:(?:is|are)(?:,[^,]{1,30},)?|stands for|means|refers to|describes)\s|\s[—–]\s|\s-{1,2}\s/;
const CALLED = /\b(?:is|are) (?:called|known as|named|termed)\s+(.+)$/i;
/**
 * A copula followed by a past participle: "is published in", "are stored as", "are written using"
 * (passive voice).
 */
const PASSIVE =
  /^\s(?:is|are)\s+(?:\w+ly\s+)?(?!(?:called|known|named|termed)\b|defined as\b)(?:\w+ed|written|built|made|kept|sent|given|taken|held|found|run|done|drawn|thrown)\s+(?:in|on|by|as|to|into|from|with|using|via|through|at|for|when|once|every|only)\b/i;
/**
 * What follows "X is/are" when the sentence says where X is useful or how it compares, not what it
 * is: "Launch files are the natural place to …", "X is shown on …", "X is useful for …", "X is the
 * same way".
 */
const NOT_DEFINING =
  /^(?:(?:the|a|an) (?:(?:\w+ )?(?:natural|right|best|usual|obvious|only|good|ideal|easiest|simplest|recommended) )?(?:place|spot|home|location) (?:to|for|where|in which)\b|(?:the|a|an)? ?(?:\w+ly )?(?:same|similar|different|useful|helpful|handy|important|convenient|optional|available|required|needed|necessary|possible|recommended|preferred|shown|covered|discussed|explained|described|introduced|listed|mentioned|illustrated)\b)/i;
/**
 * One word after "X is/are" and then a reason or condition: "Enhancers are powerful because …",
 * "The lookup is slow when …" say how X behaves, not what it is.
 */
const QUALIFIED =
  /^(?:\w+ly )?[\w-]+ (?:because|since|when|whenever|if|unless|so|but|though|although|while|once)\b/i;
/**
 * Words that open a phrase or clause setting the scene before the sentence's subject ("With the
 * default executor, …", "When the robot moves, …"). Not "for", "in", "on": "For this ROS 2 offers
 * services, a …" often runs on into the main clause without a comma.
 */
const INTRODUCTORY =
  /^["'(]*(?:with|without|when|whenever|while|if|unless|after|before|once|since|because|although|though|during|unlike)\b/i;
/** "The callback is called when …": the verb call, not a name. */
const CALLED_VERB =
  /^(?:once|when|whenever|while|by|from|with|after|before|on|in|at|every|each|only|again|twice|back|for|if|to|periodically|repeatedly)\b/i;
const ACTIONABLE =
  /^(?:instead,? |to [^,]{3,60}, )?(?:use|run|call|add|set|pass|put|declare|install|source|build|create|write|launch|start|open|edit|give|keep|make|check|try|remove|replace|define|register|list|spawn|load|record|store|avoid|never|always|do not|don't)\b/i;

/** A sentence sending the reader on to another part of the book, which it does not summarise. */
const POINTS_ONWARD =
  /^(?:next|now|later|below|then),? (?:we(?:'ll| will)|let's|let us|I(?:'ll| will)) (?:(?:take a )?look at|talk about|see|cover|go over|discuss|explore|examine|walk through|dig into)\b[^:]*\.$|^(?:(?:next|now|then),? )?(?:continue|move|go|head|proceed|step ahead) (?:on )?to\b|^(?:the|our) next (?:section|part|page|chapter|tutorial|lesson) (?:will )?(?:covers?|shows?|looks?|explains?|describes?|introduces?)\b|^in the (?:next|following|coming) (?:section|part|page|chapter|tutorial|lesson)s?\b/i;

// Chunks repeat across questions; parsing them once saves most of the work.
const parsedChunks = new Map<string, ParsedChunk>();

export function parsedChunk(chunk: RetrievedChunk["chunk"]): ParsedChunk {
  return cachedIn(parsedChunks, `${chunk.id}:${chunk.contentHash}`, 5_000, () =>
    parseBlocks(blocksOf(chunk), chunk.headingPath.join(" "), chunk.headingPath.at(-1)),
  );
}

/**
 * A sentence that sends the reader to the list after it: "For more details, see:", "See these
 * pages to learn how to use "modern Redux" with Redux Toolkit:".
 */
const READING_POINTER =
  /(?:\b(?:see|read|check out)(?: also)?(?: the following(?: \w+)?)?|^for (?:more|further) (?:info|information|details|reading)\b.*|^(?:see|check out)\b.*):$/i;

/** A text that is no chunk (a reader's selection) as units. */
export function parseText(text: string): ParsedChunk {
  return parseBlocks(chunkBlocks(text));
}

function parseBlocks(stored: ChunkBlock[], heading = "", ownHeading = heading): ParsedChunk {
  // A copy: a list item's code is marked as taken below, and the stored blocks stay as they are.
  const blocks = [...stored];
  const headingTerms = [new Set(analyze(heading))];
  const headings = [ownHeading];
  const units: Unit[] = [];
  // A reading list's items are never quoted: "#580: Is it possible to get action and state in
  // store.subscribe?" matches a reader's question word for word, while the section above answers it.
  let readingList = READING_LIST.test(ownHeading.trim());
  let section = 0;
  let run = 0;
  for (const [position, block] of blocks.entries()) {
    // Where a unit of this block sits; `run` is read when the unit is made.
    const place = (item: boolean, first: boolean) => ({
      section,
      run,
      paragraph: position,
      item,
      first,
    });
    if (block.kind === "heading") {
      section++;
      run++;
      headingTerms[section] = new Set([...(headingTerms[0] ?? []), ...analyze(block.text)]);
      headings[section] = block.text;
      // A label inside a reading list ("**Articles**") does not end it; the next heading does.
      readingList =
        READING_LIST.test(block.text.replace(/[*_]/g, "").trim()) ||
        (readingList && block.inferred === true);
      continue;
    }
    if (readingList) continue;
    if (block.kind === "list") {
      // An item ending in ":" before code or a table (code inside a list item) brings it along.
      const next = blocks[position + 1];
      const attachable = next && (next.kind === "code" || next.kind === "table") ? next : null;
      for (const [order, item] of block.items.entries()) {
        const leadsIn =
          attachable !== null && order === block.items.length - 1 && item.endsWith(":");
        const unit = unitOf(item, place(true, order === 0), leadsIn);
        if (!unit) continue;
        units.push(unit);
        if (leadsIn && attachable) {
          unit.attachment = renderBlock(attachable);
          unit.attachmentTerms = new Set(analyze(blockText(attachable)));
          blocks[position + 1] = { kind: "other" };
          run++;
        }
      }
      continue;
    }
    if (block.kind === "table") {
      // A table no sentence introduces: each row naming a term is quotable on its own, as a
      // glossary entry is ("Accuracy — How close readings are to the true value on average").
      run++;
      for (const row of termRows(block.rows)) {
        const unit = unitOf(row, place(true, true));
        if (unit) units.push(unit);
      }
      run++;
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
    // A short question the text asks itself ("Ahead of what?") and the sentence answering it ("Of
    // the lidar, which sits …") both lean on what comes before: neither opens a passage, and the
    // question, too short to quote alone, is kept so that a passage never reads on across it.
    let answersQuestion = false;
    for (const [order, sentence] of sentences.entries()) {
      const last = order === sentences.length - 1;
      const answers = answersQuestion;
      answersQuestion = false;
      if (!last && sentence.endsWith("?") && sentence.split(" ").length < MIN_WORDS) {
        const unit = unitOf(sentence, place(false, order === 0), true);
        if (unit) {
          unit.pointsBack = true;
          units.push(unit);
          answersQuestion = true;
          continue;
        }
      }
      // "For more info on how immutability works, see:" and its list of links is a reading list.
      if (last && attachable?.kind === "list" && READING_POINTER.test(sentence)) {
        blocks[position + 1] = { kind: "other" };
        run++;
        continue;
      }
      // A paragraph that is only a label before a list ("Causes and fixes.") introduces it.
      const labels =
        sentences.length === 1 && attachable?.kind === "list" && LIST_LABEL.test(sentence);
      // A sentence that stops without its full stop before code goes on in that code ("…, the
      // robot's CoM is" and the formula).
      const runsIntoCode = last && attachable?.kind === "code" && ENDS_UNSTOPPED.test(sentence);
      const introduces =
        sentence.endsWith(":") || POINTS_FORWARD.test(sentence) || labels || runsIntoCode;
      if (introduces && !(last && attachable)) {
        // Its list or code is not there to follow it: the sentence cannot stand in an answer, and
        // the text around it does not read on across it.
        if (sentence.endsWith(":") || startsWith(sentence, POINTS_FORWARD)) {
          run++;
          continue;
        }
      }
      // A short lead-in ("Useful flags:") is quotable with what it introduces.
      const leadsIn = introduces && last && attachable !== null;
      const unit = unitOf(sentence, place(false, order === 0), leadsIn);
      if (!unit) continue;
      if (answers) unit.pointsBack = true;
      // "The example is a bit long, because …" right after code speaks of that code (at a chunk's
      // start, of the code ending the chunk before).
      const before = blocks[position - 1];
      if (
        order === 0 &&
        (!before || before.kind === "code") &&
        NAMES_CODE.test(sentence) &&
        !POINTS_FORWARD.test(sentence)
      )
        unit.pointsBack = true;
      if (introduces && last && attachable) {
        // A lead-in right after another one's list or code goes on with it ("… in dependency
        // order: ```…``` Useful flags: | … |"): one passage may hold both.
        const previous = units[units.length - 1];
        if (
          order === 0 &&
          sentences.length === 1 &&
          previous?.attachment &&
          previous.section === section &&
          previous.paragraph === position - 2
        )
          unit.run = previous.run;
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
  return { headingTerms, headings, units, allTerms };
}

function startsWith(sentence: string, pattern: RegExp): boolean {
  const match = pattern.exec(sentence);
  return match !== null && match.index < 25;
}

function unitOf(
  raw: string,
  place: { section: number; run: number; paragraph: number; item: boolean; first: boolean },
  introducing = false,
): Unit | null {
  let text = raw
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\s+/g, " ")
    .trim();
  // Bold lead-ins ("Symptom. ros2 run fails …") and admonition titles ("Open a new terminal
  // after building: Source the workspace …") are labels, not part of the sentence.
  const whole = text;
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
  if ((prose.split(" ").length < MIN_WORDS && !introducing) || prose.length > 600) return null;
  // A cross-reference ("See QoS profiles.") or a pointer onward ("Next, continue on to Part 2 …")
  // says nothing by itself.
  if (/^see\b/i.test(prose) || POINTS_ONWARD.test(prose) || POINTS_ONWARD.test(whole)) return null;
  return {
    text,
    terms: new Set(analyze(prose)),
    attachmentTerms: new Set(),
    attachment: null,
    section: place.section,
    run: place.run,
    paragraph: place.paragraph,
    item: place.item,
    pointsBack:
      POINTS_BACK.test(prose) ||
      ACTS_ON_BEFORE.test(prose) ||
      (!place.item && CONTINUES.test(prose)),
    definienda: definiendaOf(prose),
    appositions: appositionsOf(prose),
    actionable: ACTIONABLE.test(prose),
    opensParagraph: place.first,
  };
}

/**
 * What a sentence defines: "X is …", "X (…) is …", "X — …", "X stands for …", "… is called X".
 * "Parameters are named configuration values …" reads both ways, so both readings are kept.
 */
function definiendaOf(sentence: string): Named[] {
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
  // "Odometry is published in the odom frame …" says what is done with X, not what X is.
  const passive = copula && PASSIVE.test(sentence.slice(copula.index));
  const predicate = copula ? sentence.slice(copula.index + copula[0].length) : "";
  const describesUse =
    copula &&
    /^\s(?:is|are)\b/.test(copula[0]) &&
    (NOT_DEFINING.test(predicate) || QUALIFIED.test(predicate));
  if (copula && copula.index <= 120 && !passive && !describesUse)
    subjects.push(sentence.slice(0, copula.index));
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
    return [outside, ...parentheses].map(named).filter((part) => part.terms.size > 0);
  });
}

function named(text: string): Named {
  return { terms: new Set(analyzeQuery(text).words) };
}

/** A short noun phrase ending a list: "demos and the tutorials", "demos, and the tutorials". */
const ENUMERATED = /^(?:[\w-]+ ){0,2}[\w-]+,? (?:and|or) /i;
/** A word introducing a list before the noun: "includes RViz, …", "such as RViz, …". */
const LISTS_BEFORE = /\b(?:includes?|including|such as|like|e\.g\.)\s*$/i;

/** The nouns an apposition defines: "ROS 2 offers services, a remote procedure call pattern". */
function appositionsOf(sentence: string): Named[] {
  const found: Named[] = [];
  for (const match of sentence.matchAll(/([\p{L}\p{N}_-]+), (?:an?|the) /gu)) {
    // The comma closing an opening phrase ("With the default executor, a callback …") sets the
    // scene; the noun before it is not explained by what follows.
    if (INTRODUCTORY.test(sentence) && !sentence.slice(0, match.index).includes(",")) continue;
    // Nor is an item of a list ("includes RViz, the demos and the tutorials") explained by the next.
    const after = sentence.slice((match.index ?? 0) + match[0].length);
    if (ENUMERATED.test(after) || LISTS_BEFORE.test(sentence.slice(0, match.index))) continue;
    const noun = named(match[1] ?? "");
    if (noun.terms.size > 0) found.push(noun);
  }
  return found;
}

/** A chunk the answer may quote: a retrieval result, or a chunk of a result's page. */
export interface Candidate {
  result: RetrievedChunk;
  parsed: ParsedChunk;
  /** Rank of the result it is (or whose page it belongs to), from 0. */
  rank: number;
}

/** Calls `visit(start, end)` for every window of 1..max consecutive units of one run. */
export function forEachWindow(
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

/** Sentences of one paragraph run on; list items and new paragraphs start a new line. */
export function render(units: Unit[], citation: number | null): string {
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

/** A term a table row names in its first cell: a few words, not a sentence or a number. */
const MAX_TERM_WORDS = 5;

/**
 * The body rows of a table whose first column names terms, each as a list item: "- **Accuracy** —
 * How close readings are to the true value on average (Example: A lidar accurate to ±3 cm)". None
 * for a table whose first column holds sentences or numbers. The first row is the header.
 */
export function termRows(rows: string[]): string[] {
  const [head, ...rest] = rows;
  const body = rest.filter((row) => !isSeparatorRow(row));
  if (!head) return [];
  const header = tableCells(head);
  if (header.length < 2) return [];
  const table = body.map(tableCells);
  const namesTerms = (row: string[]) => {
    const term = row[0]?.replace(/[*_`]/g, "").trim() ?? "";
    return (
      term.length > 0 &&
      term.split(/\s+/).length <= MAX_TERM_WORDS &&
      /\p{L}/u.test(term) &&
      !/[.!?:]$/.test(term)
    );
  };
  if (table.length === 0 || !table.every(namesTerms)) return [];
  return table.map((row) => {
    const [term = "", meaning = "", ...more] = row;
    const extra = more
      .map((cell, index) => (cell ? `${header[index + 2] || ""}: ${cell}`.replace(/^: /, "") : ""))
      .filter(Boolean);
    const named = /^\*\*.*\*\*$/.test(term) ? term : `**${term.replace(/\*\*/g, "")}**`;
    return `- ${named} — ${meaning}${extra.length > 0 ? ` (${extra.join("; ")})` : ""}`;
  });
}
