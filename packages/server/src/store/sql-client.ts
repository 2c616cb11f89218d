/**
 * The narrow database interface every store adapter implements (PGlite in-process, PostgreSQL over
 * the network). Both speak the same SQL, so the repositories above them are written once.
 */
export interface SqlQueryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
}

export interface SqlClient extends SqlQueryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` in one transaction: all of it is committed, or none of it. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
