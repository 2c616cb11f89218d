import type { Config } from "./config/config.ts";
import { type IngestReport, ingestDocs, ingestOptionsFromConfig } from "./ingest/ingest.ts";
import { applyToIndex, loadLexicalIndex, saveLexicalIndex } from "./search/index-store.ts";
import type { LexicalIndex } from "./search/lexical-index.ts";
import { Retriever } from "./search/retriever.ts";
import { DocumentStore } from "./store/document-store.ts";
import { openDatabase } from "./store/open.ts";
import type { SqlClient } from "./store/sql-client.ts";

/** The assembled library: database, document store, BM25 index and retriever for one collection. */
export interface Lectern {
  readonly config: Config;
  readonly db: SqlClient;
  readonly store: DocumentStore;
  index: LexicalIndex;
  retriever: Retriever;
  ingest(
    docsDir: string,
    onProgress?: Parameters<typeof ingestDocs>[1]["onProgress"],
  ): Promise<IngestReport>;
  close(): Promise<void>;
}

export async function openLectern(config: Config): Promise<Lectern> {
  const db = await openDatabase(config);
  const store = new DocumentStore(db, config.collection);
  const loaded = await loadLexicalIndex(store, config.dataDir);
  const makeRetriever = (index: LexicalIndex) =>
    new Retriever(index, {
      topK: config.search.topK,
      maxChunksPerPage: config.search.maxChunksPerPage,
    });

  const lectern: Lectern = {
    config,
    db,
    store,
    index: loaded.index,
    retriever: makeRetriever(loaded.index),
    async ingest(docsDir, onProgress) {
      const options = ingestOptionsFromConfig(config, docsDir);
      const report = await ingestDocs(store, onProgress ? { ...options, onProgress } : options);
      if (report.changed) {
        applyToIndex(lectern.index, report);
        await saveLexicalIndex(
          lectern.index,
          config.dataDir,
          config.collection,
          report.indexVersion,
        );
        lectern.retriever = makeRetriever(lectern.index);
      }
      return report;
    },
    close: () => db.close(),
  };
  return lectern;
}
