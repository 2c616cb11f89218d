/** An earlier question and answer a follow-up is read with (stored ones: HistoryExchange). */
export interface Exchange {
  query: string;
  answer: string;
}
