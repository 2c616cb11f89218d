import { analyze, plainWordForms } from "../search/analyzer.ts";
import { CONTEXT_WEIGHT, type RetrievedChunk } from "../search/retriever.ts";
import type { ChunkRecord } from "../store/document-store.ts";
import { sum } from "../util/numbers.ts";
import { toBlocks } from "./blocks.ts";
import { comparedItems, comparedPhrases, comparingChunks } from "./comparisons.ts";
import { DEFINES, DESCRIBES, definingChunks, definitionStrength } from "./definitions.ts";
import {
  ASKS_CAUSE,
  bestWindow,
  boldedPassage,
  canOpen,
  comparedSubjects,
  headsTask,
  namedOpening,
  openingPassage,
  opensSection,
  type Passage,
  strongestDefinition,
  throughTheCauses,
  throughTheFix,
} from "./passages.ts";
import { anyOf, coverageOf, type WeightedQuestion, weighQuestion } from "./question-weights.ts";
import {
  type Candidate,
  forEachWindow,
  type ParsedChunk,
  parsedChunk,
  parseText,
  render,
  shownBlock,
  type Unit,
} from "./units.ts";

/**
 * The answer given when no language model is configured: the best contiguous passage of the
 * retrieved chunks, quoted as it stands and followed by the [n] marker of its source (n = position
 * in `results`, starting at 1), featured-snippet style. With `maxPassages: 2`, a second short
 * passage from another source is added when the first covers little of the question; not by
 * default, because the words such a passage adds are nearly always incidental (43 second passages
 * on the sample book's and the Redux docs' questions: "How can one node query another…?" got a
 * path planner's "answers many queries" after the service passage).
 *
 * A passage is a window of 1–4 consecutive sentences under one heading of one chunk. Windows are
 * scored by:
 *
 *   coverage   the question's words the window contains, each weighted by how rare it is among the
 *              candidate chunks (log(1 + (N + 1) / (df + 0.5))), so "urdf" outweighs "ros";
 *              words only found in a list or code block the window brings along count half;
 *   + 0.15 ×   share of the question's words in the heading path above the window;
 *   + 0.50 ×   that share again, in the plain words of the window's own heading, when that heading
 *              asks a question sharing two or more of the reader's words (an FAQ entry: "Will
 *              caching remote data cause memory problems?");
 *   + 0.20 ×   the chunk's calibrated similarity score, + 0.04 for ranking first (less further down);
 *   + 0.35 ×   strength of a defining sentence ("X is …", "X (…) is a …", "X stands for …", "… is
 *              called X", "The word X means …") opening the window, for "what is X" questions
 *              (0.10 when it is inside); a sentence that only spells out an acronym's words
 *              counts 0.6, one that also names the acronym 1; a copula saying where X is useful
 *              or written ("X are the natural place to …", "X is defined in …") and the noun
 *              before the comma closing "With …, " or "When …, " define nothing; one ending on a
 *              pronoun ("… a framework that standardises it.") counts half unless the window
 *              opens at its paragraph's start;
 *   − 0.03     per sentence without any question word, and per paragraph break crossed;
 *   − 0.08     for a single sentence when its paragraph goes on (2–4 sentences read better).
 *
 * In a "what is X" question the words outside X ("… in humanoid walking") weigh 0.3: they place
 * the term, and the sentence defining it rarely repeats them. So do the words outside the things a
 * comparison compares ("difference", the "frame" in "the map frame and the odom frame").
 *
 * Definitions sit where a retrieved chunk may not be: at the opening of the page about X, at the
 * start of the section about X, in the glossary. Given the pages' chunks (`pageChunks`), a "what
 * is X" question also weighs the opening chunk of a result's page whose title names X, the first
 * chunk of the section whose heading names X when a result continues it, the chunk of a result's
 * page holding a section headed by X ("Transforms in a nutshell"), and the chunk of a glossary
 * page holding X's entry. A chunk quoted this way is returned in `extraSources` and cited after the
 * results. When no sentence of all these defines X (strength below 0.8), the answer is the opening
 * paragraph of the page whose title opens with X, else of the section whose heading does: there
 * the book says what X is in its own words (`namedOpening`). When there is none and no sentence
 * reads as defining X even in part (strength 0), the answer is the sentence where the book sets X
 * in bold, first in book order (`chunksBolding`, then the candidates' own chunks): a book often
 * introduces a term only so ("Nodes that produce data create a **publisher** on the topic"). It is
 * quoted with its neighbour where the passage rules ask for one, and cited like the other chunks
 * looked up (`boldedPassage`).
 *
 * A comparison ("What is the difference between X and Y?") whose best passage says what neither
 * thing is, while the book defines both (as a definition question would find them), is answered
 * with the two definitions, one or two sentences each (`definedApart`).
 *
 * A passage from a section merged into its chunk after the first is returned in `quotedSections`
 * with that section's anchor, so its citation links to where the quote is.
 *
 * A "how do I" passage that stops before the fix ("… so the node freezes. Never call …") runs on
 * to the sentence giving it ("Instead, use …") when that follows within three sentences of the
 * same text.
 *
 * A section whose heading names the task a "how do I" question asks ("Calling services from the
 * command line" for "How do I call a service from the command line?") and opens on code, with no
 * sentence before it, is quoted as its heading followed by that code: the heading is the code's
 * lead-in (`labelsCode` in units.ts). Only for such a question, and only where the code opens the
 * section; the heading's words are not counted as the text's for any other question. A heading
 * names the task when it opens with the question's verb in its "-ing" form acting on the same
 * thing, or on nothing named (`headsTask`). When the search found another chunk of a result's page
 * (a later chunk of such a section, or another section: "Message types" for "How do I publish a
 * message on a topic?"), the first chunk of the section naming the task is weighed too.
 *
 * The weights were set by reading answers to the sample book's definition and how-to questions
 * (examples/robotics-primer/questions.jsonl, rows a001–a020), not by fitting a number.
 *
 * What is never quoted: heading lines (Markdown `#` lines or a short unpunctuated line standing
 * alone before other text), sentences of fewer than four words ("Symptom."), table rows, images,
 * admonition markers ("Note:"), a sentence ending in ":" whose list or code block is not there,
 * and a window opening with a reference to something before it ("This", "It", "As shown above")
 * or after it ("The example below") that it does not include.
 *
 * Where each part lives: blocks.ts (Markdown blocks), units.ts (sentences and list items),
 * question-weights.ts (the question's words and subject), passages.ts (scoring windows, the fix
 * of a how-to) and definitions.ts (defining sentences and the chunks where definitions sit).
 */

export interface ExtractiveAnswer {
  text: string;
  /** True when no passage could be quoted and the text only points to the sources. */
  pointerOnly?: boolean;
  /** 1-based source numbers the answer cites. */
  cited: number[];
  /**
   * Chunks the answer quotes that are not among the results (see `pageChunks`), in citation
   * order: the first is cited as [results.length + 1 + citationOffset], the next one after it.
   */
  extraSources: RetrievedChunk[];
  /**
   * Where a quoted passage sits when that is a section merged into its chunk after the first: the
   * link its citation should carry instead of the chunk's own.
   */
  quotedSections: QuotedSection[];
}

/** The section of a chunk an answer quotes, for the citation `citation`. */
export interface QuotedSection {
  citation: number;
  /** The page URL with the section's anchor. */
  url: string;
  section: string;
  headingPath: string[];
}

export interface ExtractiveOptions {
  /** Most sentences in one passage; default 4. */
  maxSentences?: number;
  /** Most passages (each from a different source); default 1. */
  maxPassages?: number;
  /** Added to every [n] marker, for answers whose sources follow other citations; default 0. */
  citationOffset?: number;
  /**
   * The chunks of a page in page order. With it, a definition question also weighs the chunks of
   * the results' pages where a definition usually sits (`definingChunks`).
   */
  pageChunks?: (filePath: string) => ChunkRecord[];
  /** The book's glossary pages: a definition question also looks up its term there. */
  glossaryPages?: string[];
  /** The chunks opening a page or section titled exactly this (a definition question's X). */
  sectionsHeaded?: (heading: string) => ChunkRecord[];
  /** The earlier question a follow-up was searched with: its words count at half weight. */
  context?: string;
  /** The chunks setting this term in bold, in book order (a definition question's X). */
  chunksBolding?: (term: string) => ChunkRecord[];
  /** Text whose sentences the passage may not quote: a reader's selection, which they have read. */
  avoid?: string;
  /**
   * The reader asks for an example although the question searched with does not say so ("Give me
   * an example" about a selection is searched with the selection's words).
   */
  asksExample?: boolean;
  /**
   * `context` is a selection the question asks about ("How do I fix it?"), not an earlier turn:
   * its words together may weigh as much as the question's own (SELECTION_CONTEXT_SHARE), where an
   * earlier turn's weigh at most half as much.
   */
  selectionContext?: boolean;
}

/** A selection's words together weigh at most this share of the question's own words. */
const SELECTION_CONTEXT_SHARE = 1;

export function extractiveAnswer(
  question: string,
  results: RetrievedChunk[],
  options: ExtractiveOptions = {},
): ExtractiveAnswer {
  const maxSentences = options.maxSentences ?? 4;
  const maxPassages = options.maxPassages ?? 1;
  const offset = options.citationOffset ?? 0;
  const candidates: Candidate[] = results.map((result, rank) => ({
    result,
    parsed: parsedChunk(result.chunk),
    rank,
  }));
  // A result that is code alone (the rest of an example split across chunks) has nothing to
  // quote: the text before it in its section says what the code does.
  if (options.pageChunks) candidates.push(...leadIns(results, options.pageChunks));
  // Nor does one whose section runs on past its closing code: what to do with the example
  // ("In RViz, add a RobotModel display…") is in the next chunk.
  if (options.pageChunks)
    candidates.push(...continuations(results, options.pageChunks, candidates));
  // A comparison the results do not hold may sit in another chunk of their pages: weighed with
  // them, so that its words count.
  const compared = comparedItems(question);
  if (compared.length > 0 && options.pageChunks) {
    const characterises = characterisation(
      weighQuestion(
        question,
        candidates.map((candidate) => candidate.parsed),
        options.context,
        compared,
      ),
    );
    candidates.push(
      ...comparingChunks(compared, results, options.pageChunks, maxSentences, characterises),
    );
  }
  const weighed = weighQuestion(
    question,
    candidates.map((candidate) => candidate.parsed),
    options.context,
    compared,
    options.selectionContext ? SELECTION_CONTEXT_SHARE : CONTEXT_WEIGHT,
  );
  const query = options.asksExample ? { ...weighed, example: true } : weighed;
  // Asked for an example: a result ending on prose whose section's code comes in the next chunk
  // (the chunker keeps a long example whole) brings that code along as the code after its text.
  if (query.example && options.pageChunks)
    for (const candidate of candidates.slice(0, results.length))
      candidate.parsed = withCodeAfter(
        candidate.result.chunk,
        candidate.parsed,
        options.pageChunks,
      );
  if (query.subject && options.pageChunks)
    candidates.push(
      ...definingChunks(
        query,
        results,
        options.pageChunks,
        options.glossaryPages ?? [],
        options.sectionsHeaded?.(query.subjectText) ?? [],
      ),
    );
  // The section showing how to do what a how-to asks ("Writing an action server") may open on
  // code that the chunk the search found (a later one of that section, or another section of its
  // page) does not hold.
  if (query.task && options.pageChunks) {
    const pageChunks = options.pageChunks;
    candidates.push(...taskOpenings(query, candidates, results, pageChunks));
    for (const candidate of candidates)
      candidate.opensSection = opensSection(candidate.result.chunk, pageChunks);
  }
  const passages: Passage[] = [];
  // Where no sentence defines X: the page or section named after X; where none even reads as
  // defining it, the sentence setting X in bold; else the best window.
  const strongest = strongestDefinition(query, candidates);
  const best =
    (query.subject && strongest < DEFINES
      ? (namedOpening(query, candidates, {
          maxSentences,
          ...(options.pageChunks ? { pageChunks: options.pageChunks } : {}),
        }) ??
        (strongest === 0 && !aboutSubject(query, results[0])
          ? boldedPassage(
              query,
              candidates,
              options.chunksBolding?.(query.subjectText) ?? [],
              results[0],
            )
          : null))
      : null) ??
    bestWindow(query, candidates, {
      maxSentences,
      rankCount: results.length,
      ...(options.avoid ? { avoid: options.avoid } : {}),
      // Each cause a list gives is part of the answer to "why".
      wholeLists: ASKS_CAUSE.test(question),
    });
  // A comparison the book never makes in one passage: what it says each thing is, one by one.
  const apart =
    best && compared.length === 2 && options.pageChunks
      ? definedApart(question, query, best, candidates, results, options)
      : null;
  const fixed = best && query.howTo ? throughTheFix(best, candidates) : best;
  const found = fixed && ASKS_CAUSE.test(question) ? throughTheCauses(fixed, candidates) : fixed;
  const first = found && query.subject ? withItemsNaming(found, query.subject) : found;
  if (apart) passages.push(...apart);
  else if (first) {
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
    const opening = openingPassage(candidates, results.length);
    if (opening) passages.push(opening);
  }
  if (passages.length === 0 && results.length > 0) return pointerToSources(results, offset);
  const extraSources: RetrievedChunk[] = [];
  const citationOf = (passage: Passage) => {
    const candidate = candidates[passage.source];
    if (passage.source < results.length || !candidate) return passage.source + 1 + offset;
    // A result weighed again at a better rank (a glossary entry) keeps its own number, as does
    // the start of a result's section (a source is listed once per section).
    const chunk = candidate.result.chunk;
    const asResult = results.findIndex(
      (result) =>
        result.chunk.id === chunk.id ||
        (result.chunk.url === chunk.url &&
          result.chunk.headingPath.join("\n") === chunk.headingPath.join("\n")),
    );
    if (asResult >= 0) return asResult + 1 + offset;
    if (!extraSources.includes(candidate.result)) extraSources.push(candidate.result);
    return results.length + extraSources.indexOf(candidate.result) + 1 + offset;
  };
  const citations = passages.map(citationOf);
  const quotedSections: QuotedSection[] = [];
  for (const [index, passage] of passages.entries()) {
    const candidate = candidates[passage.source];
    const citation = citations[index];
    const section = candidate && quotedSection(candidate, passage);
    if (section && citation !== undefined) quotedSections.push({ citation, ...section });
  }
  return {
    text: passages
      .map((passage, index) => render(passage.units, citations[index] ?? null))
      .join("\n\n"),
    cited: [...new Set(citations)],
    extraSources,
    quotedSections,
  };
}

/**
 * A definition found in one item of a list that a passage's last sentence introduces ("The usual
 * suspects…: 1. Contact… 2. Actuator dynamics… gearbox backlash (play when the direction
 * reverses)…"): the passage brings that item alone, with its number, not the whole list, when
 * its sentences do not name X themselves.
 */
function withItemsNaming(passage: Passage, subject: Map<string, number>): Passage {
  const last = passage.units.at(-1);
  const items = last?.attachmentItems;
  if (!last || !items || items.length < 3) return passage;
  const terms = [...subject.keys()];
  const names = (found: Set<string>) => terms.every((term) => found.has(term));
  if (passage.units.some((unit) => names(unit.terms))) return passage;
  const naming = items.filter((item) => names(new Set(analyze(item))));
  if (naming.length === 0 || naming.length > 2) return passage;
  const trimmed = { ...last, attachment: naming.join("\n") };
  return { ...passage, units: [...passage.units.slice(0, -1), trimmed] };
}

/**
 * For a comparison whose best passage says what none of the compared things is ("What is the
 * difference between a reducer and an action creator?" quoting advice on related actions): the
 * passage defining each, found as the answer to "What is X?" would be (the glossary, the page or
 * section named after X), each one or two sentences. Null unless the book defines every one of
 * them (strength DEFINES): two strong definitions answer a comparison better than a passage that
 * compares nothing, while one definition beside nothing would leave the other thing out.
 */
function definedApart(
  question: string,
  query: WeightedQuestion,
  best: Passage,
  candidates: Candidate[],
  results: RetrievedChunk[],
  options: ExtractiveOptions,
): Passage[] | null {
  if (!options.pageChunks || best.units.some(characterisation(query))) return null;
  const passages: Passage[] = [];
  for (const phrase of comparedPhrases(question)) {
    const item = weighQuestion(
      `What is ${phrase}?`,
      candidates.map((candidate) => candidate.parsed),
      options.context,
      [],
    );
    if (!item.subject) return null;
    const seen = new Set(candidates.map((candidate) => candidate.result.chunk.id));
    for (const found of definingChunks(
      item,
      results,
      options.pageChunks,
      options.glossaryPages ?? [],
      options.sectionsHeaded?.(item.subjectText) ?? [],
    ))
      if (!seen.has(found.result.chunk.id)) candidates.push(found);
    const passage = bestWindow(item, candidates, { maxSentences: 2, rankCount: results.length });
    const opening = passage?.units[0];
    // An API the book describes by what it does ("useSelector accepts …") counts as defined.
    const defines = item.subjectIdentifiers.size > 0 ? DESCRIBES : DEFINES;
    if (!passage || !opening || definitionStrength(item, opening) < defines) return null;
    if (passages.some((other) => other.units.some((unit) => passage.units.includes(unit))))
      return null;
    passages.push(passage);
  }
  return passages;
}

/**
 * Whether a unit says what one of a comparison's things is: a sentence defining it (judged as a
 * definition question's subject is), or a list giving each thing an item of its own.
 */
function characterisation(query: WeightedQuestion): (unit: Unit) => boolean {
  const subjects = comparedSubjects(query);
  return (unit) =>
    subjects.some((subject) => definitionStrength(subject, unit) > 0) ||
    itemsOneEach(query.compared, unit);
}

/**
 * Whether the list a unit introduces gives each compared thing an item of its own ("Two extensions
 * are standard: - The extended Kalman filter (EKF) linearises … - The unscented Kalman filter (UKF)
 * propagates …"): the book compares them item by item.
 */
function itemsOneEach(compared: string[][], unit: Unit): boolean {
  const items = (unit.attachmentItems ?? []).map((item) => new Set(analyze(item)));
  const naming = compared.map((words) =>
    items.findIndex((terms) => words.some((word) => terms.has(word))),
  );
  return naming.every((index) => index >= 0) && new Set(naming).size === compared.length;
}

/**
 * A heading that only labels what follows as an example of its parent section's topic: "Example",
 * "Usage example", "Examples". The parent section says what the example shows.
 */
const EXAMPLE_HEADING = /^(?:(?:a|an|the|full|complete|basic|simple|usage|code)\s+)?examples?$/i;

/**
 * For each result holding no sentence a passage can open on (code only, the rest of a long
 * example, or "can be tested like:" going on from the code above it), the nearest chunk before it
 * in its section that has some, weighed as that result. A section headed "Example" is part of its
 * parent section: its lead-in may be the parent's text.
 */
export function leadIns(
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
): Candidate[] {
  const seen = new Set(results.map((result) => result.chunk.id));
  const found: Candidate[] = [];
  for (const [rank, result] of results.entries()) {
    if (parsedChunk(result.chunk).units.some(canOpen)) continue;
    const page = pageChunks(result.chunk.filePath);
    const path = result.chunk.headingPath;
    const section = path.join("\n");
    const parent =
      path.length > 2 && EXAMPLE_HEADING.test(path.at(-1)?.trim() ?? "")
        ? path.slice(0, -1).join("\n")
        : section;
    for (
      let index = page.findIndex((chunk) => chunk.id === result.chunk.id) - 1;
      index >= 0;
      index--
    ) {
      const chunk = page[index];
      if (!chunk) break;
      // The chunk's own section, or one that starts inside it (small sections share a chunk).
      const paths = [chunk.headingPath, ...(chunk.sectionAnchors ?? []).map((s) => s.headingPath)];
      const holds = paths.map((at) => at.join("\n"));
      if (!holds.includes(section) && !holds.includes(parent)) break;
      const parsed = parsedChunk(chunk);
      if (!parsed.units.some(canOpen)) continue;
      if (!seen.has(chunk.id)) {
        seen.add(chunk.id);
        found.push({ result: { ...result, chunk }, parsed, rank });
      }
      break;
    }
  }
  return found;
}

/**
 * A chunk's parsed text whose last sentence gets, as the code after its paragraph, the code block
 * that opens the page's next chunk of the same section; the chunk as parsed when it ends on
 * anything else or the next chunk does not open on code.
 */
function withCodeAfter(
  chunk: ChunkRecord,
  parsed: ParsedChunk,
  pageChunks: (filePath: string) => ChunkRecord[],
): ParsedChunk {
  const last = parsed.units.at(-1);
  if (!last || last.attachment || last.followingCode || last.item) return parsed;
  const ending = chunk.text.trimEnd();
  if (!ending.endsWith(last.text.slice(-20).trimEnd())) return parsed;
  const page = pageChunks(chunk.filePath);
  const next = page[page.findIndex((other) => other.id === chunk.id) + 1];
  if (!next || !goesOnIn(chunk, next)) return parsed;
  // The next chunk may repeat the last sentences as overlap before the code.
  const said = squeezed(chunk.text);
  const opening = toBlocks(next.text).find(
    (block) => !(block.kind === "paragraph" && said.endsWith(squeezed(block.text))),
  );
  if (opening?.kind !== "code") return parsed;
  const followingCode = shownBlock(opening);
  return { ...parsed, units: [...parsed.units.slice(0, -1), { ...last, followingCode }] };
}

/** Whether a chunk's last section goes on in the next chunk (a merged chunk ends in its last). */
function goesOnIn(chunk: ChunkRecord, next: ChunkRecord): boolean {
  const last = chunk.sectionAnchors?.at(-1)?.headingPath ?? chunk.headingPath;
  return next.headingPath.join("\n") === last.join("\n");
}

function squeezed(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * For each result ending on a code block whose section goes on in the page's next chunk, that
 * chunk, weighed as that result: the chunker cuts after a long example, and the sentences after
 * it often say how to run it or what it shows.
 */
export function continuations(
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
  candidates: Candidate[],
): Candidate[] {
  const seen = new Set(candidates.map((candidate) => candidate.result.chunk.id));
  const found: Candidate[] = [];
  for (const [rank, result] of results.entries()) {
    if (!/```\s*$/.test(result.chunk.text)) continue;
    const page = pageChunks(result.chunk.filePath);
    const next = page[page.findIndex((chunk) => chunk.id === result.chunk.id) + 1];
    if (!next || seen.has(next.id)) continue;
    if (next.headingPath.join("\n") !== result.chunk.headingPath.join("\n")) continue;
    const parsed = parsedChunk(next);
    if (!parsed.units.some(canOpen)) continue;
    seen.add(next.id);
    found.push({ result: { ...result, chunk: next }, parsed, rank });
  }
  return found;
}

/**
 * For a how-to question: the first chunk of each section of the results' pages whose heading
 * names the task asked ("Writing an action server" for "How do I write an action server?"), when
 * the search found another chunk: a later one of that section (the rest of a long example), or
 * another section of its page ("Message types" above "Publishing and subscribing"). A page's own
 * title does not count for its other sections: a page named after the task ("Implementing Undo
 * History") opens on why, not how.
 */
function taskOpenings(
  query: WeightedQuestion,
  candidates: Candidate[],
  results: RetrievedChunk[],
  pageChunks: (filePath: string) => ChunkRecord[],
): Candidate[] {
  const seen = new Set(candidates.map((candidate) => candidate.result.chunk.id));
  const found: Candidate[] = [];
  const sectionsOf = (chunk: ChunkRecord) => [
    chunk.headingPath,
    ...(chunk.sectionAnchors ?? []).map((anchor) => anchor.headingPath),
  ];
  for (const [rank, result] of results.entries()) {
    const page = pageChunks(result.chunk.filePath);
    const paths = [
      ...sectionsOf(result.chunk),
      ...page.flatMap(sectionsOf).filter((path) => path.length > 1),
    ].filter((path) => headsTask(query, path.at(-1) ?? ""));
    for (const path of paths) {
      const section = path.join("\n");
      const opening = page.find((chunk) =>
        sectionsOf(chunk)
          .map((at) => at.join("\n"))
          .includes(section),
      );
      if (!opening || seen.has(opening.id)) continue;
      seen.add(opening.id);
      found.push({ result: { ...result, chunk: opening }, parsed: parsedChunk(opening), rank });
    }
  }
  return found;
}

/**
 * The first result sits on a page whose title names X ("Sensor Fusion" for "What is fusion?"): its
 * passages explain X better than a sentence elsewhere that sets X in bold in passing.
 */
function aboutSubject(query: WeightedQuestion, first: RetrievedChunk | undefined): boolean {
  if (!first || !query.subject) return false;
  // X's own words, not another word of their stem nor a part of an identifier ("Publishing the
  // model: robot_state_publisher" is not about publishers). A page's title, not a section's
  // heading: "The state publisher" is one node that publishes, not what a publisher is.
  const forms = plainWordForms(first.chunk.title);
  return [...query.subject.keys()].every(
    (term) => forms.has(term) && forms.get(term) === query.subjectForms.get(term),
  );
}

/**
 * When every result is code or a list of links there is no sentence to quote, but the reader
 * still deserves more than an empty answer: where to look, by the results' titles.
 */
function pointerToSources(results: RetrievedChunk[], offset: number): ExtractiveAnswer {
  const shown = results.slice(0, 3);
  const cited = shown.map((_, index) => index + 1 + offset);
  const places = shown.map((result, index) => {
    const title = result.chunk.headingPath.at(-1) ?? result.chunk.title;
    return `${title} [${cited[index]}]`;
  });
  return {
    text: `The closest passages are code or lists of links rather than prose; see ${places.join(", ")}.`,
    pointerOnly: true,
    cited,
    extraSources: [],
    quotedSections: [],
  };
}

/**
 * The merged section a passage is quoted from, found by the heading line above it (or the nearest
 * one above that with an anchor: a short line standing alone reads as a heading too). Null for the
 * chunk's first section, and for chunks stored without their sections' anchors.
 */
function quotedSection(
  candidate: Candidate,
  passage: Passage,
): Omit<QuotedSection, "citation"> | null {
  const { chunk } = candidate.result;
  const anchors = chunk.sectionAnchors ?? [];
  for (let section = passage.units[0]?.section ?? 0; section > 0; section--) {
    const heading = candidate.parsed.headings[section]?.trim();
    const found = anchors.find((anchor) => anchor.heading.trim() === heading);
    if (found)
      return {
        url: `${chunk.url.replace(/#.*$/, "")}#${found.anchor}`,
        section: found.heading,
        headingPath: found.headingPath,
      };
  }
  return null;
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
