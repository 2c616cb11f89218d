/**
 * `npm run static-parity`: whether the engine over a static snapshot of each dev book (what
 * `lectern build-static` writes) answers every question of its sets exactly as the server's chat
 * pipeline does over the live index: the answer's text, its sources, its confidence and its
 * suggestions. Reads ../shared/devsets (or LECTERN_DEVSETS) and the sample book, as eval:dev does.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bookSynopsis } from "@lectern/engine/engine/book-synopsis";
import { openStaticBook, STATIC_FORMAT } from "@lectern/engine/static/static-book";
import pino from "pino";
import { loadConfig } from "../src/config/config.ts";
import { CORE_FILE, shardsWithCore, staticBookFiles } from "../src/engine/static-files.ts";
import { loadQuestions } from "../src/eval/questions.ts";
import { openLectern } from "../src/lectern.ts";
import { createChatPipeline } from "../src/pipeline/answering.ts";
import { inStoreOrder } from "../src/search/book-file.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const devsets = path.resolve(
  process.env.LECTERN_DEVSETS ?? path.join(repoRoot, "../shared/devsets"),
);
const sample = path.join(repoRoot, "examples", "robotics-primer");

const books: [string, string, string[]][] = [
  [
    "sample",
    path.join(sample, "docs"),
    ["questions.jsonl", "questions-fresh.jsonl"].map((f) => path.join(sample, f)),
  ],
  ...["redux", "jest", "pnpm"]
    .filter((corpus) => existsSync(path.join(devsets, corpus, "docs")))
    .map((corpus): [string, string, string[]] => [
      corpus,
      path.join(devsets, corpus, "docs"),
      ["questions.jsonl", "questions_raw.jsonl", "answers.jsonl"]
        .map((file) => path.join(devsets, corpus, file))
        .filter((file) => existsSync(file)),
    ]),
];

let total = 0;
let same = 0;
console.log("| book | questions | identical answers | differing |");
console.log("|---|---:|---:|---|");
for (const [name, docs, files] of books) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-static-parity-"));
  const lectern = await openLectern(
    loadConfig({ env: { LOG_LEVEL: "warn" }, overrides: { dataDir } }),
  );
  try {
    await lectern.ingest(docs);
    const index = lectern.served.index;
    if (!index) throw new Error("no in-process index");
    const { config } = lectern;
    const book = {
      indexVersion: lectern.indexVersion(),
      pages: await lectern.store.pages(),
      chunks: inStoreOrder(index.allChunks()),
      versions: lectern.served.versions,
      locales: lectern.served.locales,
    };
    // The files build-static writes, read through the engine's own fetching.
    const bookFiles = staticBookFiles(
      book,
      index,
      bookSynopsis(book.pages, book.chunks, book.versions ?? []),
    );
    const manifest = {
      format: STATIC_FORMAT,
      indexVersion: book.indexVersion,
      title: name,
      core: `book/${CORE_FILE}`,
      withCore: shardsWithCore(bookFiles),
      settings: {
        topK: config.search.topK,
        maxChunksPerPage: config.search.maxChunksPerPage,
        routeBasePath: config.routeBasePath,
        synonyms: config.synonyms,
      },
    };
    const engine = await openStaticBook(
      "http://book.invalid/manifest.json",
      memoryFetcher(
        new Map([
          ["manifest.json", JSON.stringify(manifest)],
          ...[...bookFiles].map(([file, text]): [string, string] => [`book/${file}`, text]),
        ]),
      ),
    );
    const { pipeline } = createChatPipeline(lectern, pino({ level: "silent" }));
    const differing: string[] = [];
    let asked = 0;
    for (const file of files)
      for (const question of await loadQuestions(file)) {
        asked += 1;
        const input = {
          requestId: "parity",
          sessionId: "parity",
          query: question.question,
          selectedText: null,
          filters: undefined,
          sourceUrl: null,
          topK: undefined,
        };
        const server = await pipeline.run(input);
        const fromFiles = await engine.run(input);
        const view = (o: typeof server) =>
          JSON.stringify([
            o.answer,
            o.fallbackMessage,
            o.sources,
            o.confidence,
            o.suggestions ?? [],
          ]);
        if (view(server) !== view(fromFiles)) differing.push(question.id ?? question.question);
      }
    total += asked;
    same += asked - differing.length;
    console.log(`| ${name} | ${asked} | ${asked - differing.length} | ${differing.join(", ")} |`);
  } finally {
    await lectern.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
console.log(`| all | ${total} | ${same} (${((100 * same) / total).toFixed(1)} %) | |`);

/** Serves the files by their path under http://book.invalid/, as a static host would. */
function memoryFetcher(files: Map<string, string>): typeof fetch {
  return (async (url: URL | string) => {
    const text = files.get(new URL(url).pathname.slice(1));
    return new Response(text ?? "", { status: text === undefined ? 404 : 200 });
  }) as typeof fetch;
}
