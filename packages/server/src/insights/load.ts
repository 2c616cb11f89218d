import { LexicalIndex } from "@lectern/engine/search/lexical-index";
import { Retriever } from "@lectern/engine/search/retriever";
import { Synonyms } from "@lectern/engine/search/synonyms";
import type { Lectern } from "../lectern.ts";
import { QuestionLogStore } from "../store/question-log-store.ts";
import { buildInsights, type InsightsReport } from "./report.ts";

/**
 * The insights of one book over a period: its question log read, and the book as it is now.
 * Topics are grouped by the book's embedder when it has one; `warn` hears why embedding failed
 * when the report falls back to lexical topics.
 */
export async function loadInsights(
  lectern: Lectern,
  period: { since: Date; until: Date },
  options: { warn?: (error: unknown) => void } = {},
): Promise<InsightsReport> {
  const store = new QuestionLogStore(lectern.db, lectern.config.collection);
  const questions = (await store.since(period.since)).filter(
    (entry) => entry.askedAt <= period.until,
  );
  // With LEXICAL_BACKEND=qdrant the server holds no BM25 index: the report, an occasional batch,
  // builds one for itself (vocabulary gaps compare the book's words and rankings).
  const index = lectern.served.index ?? LexicalIndex.build(await lectern.store.allChunks());
  const retriever = lectern.served.index
    ? lectern.served.retriever
    : new Retriever(index, {
        topK: lectern.config.search.topK,
        maxChunksPerPage: lectern.config.search.maxChunksPerPage,
      });
  return buildInsights(
    questions,
    {
      index,
      retriever,
      synonyms: new Synonyms(lectern.config.synonyms),
      pages: await lectern.store.pages(),
      title: await lectern.title(),
      sliced: lectern.served.versions.length > 1 || lectern.served.locales.length > 1,
    },
    period,
    {
      embedder: lectern.embedder,
      similarity: lectern.config.insights.topicSimilarity,
      batchSize: lectern.config.embeddings.batchSize,
      ...(options.warn ? { onEmbeddingError: options.warn } : {}),
    },
  );
}
