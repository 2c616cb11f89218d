/**
 * What the answer decision reads from the book's words, without the BM25 index itself: how many
 * chunks contain each term (idf, unknown words, typo correction, completions), the number of
 * chunks, the average field lengths (BM25's avgdl, for the sparse vectors an external engine
 * scores), and the page titles (the named-page rule, the glossary). The in-process index
 * (`LexicalIndex`) answers the same questions; this table does it when the ranking lives in
 * Qdrant, at a fraction of the index's memory: one number per term, one title per page.
 */
export interface TermSource {
  /** How many chunks the book has (BM25's N). */
  readonly size: number;
  documentFrequencyOf(term: string): number;
  idf(term: string): number;
  closestTerm(term: string): string | undefined;
  termsStartingWith(prefix: string, max: number): string[];
  /** The pages whose title is exactly this identifier (as analysed). */
  pagesTitled(identifier: string): string[];
  /** The pages whose title matches `pattern`, in path order. */
  pagesTitledLike(pattern: RegExp): string[];
}
