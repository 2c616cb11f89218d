/**
 * The narrow database interface every store adapter implements (PGlite in-process, PostgreSQL over
 * the network). Both speak the same SQL, so the repositories above them are written once.
 */
export interface SqlQueryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /**
   * In a transaction: statements sent as one text, without parameters (values written in with
   * `sqlLiteral`), as part of the transaction; an error fails the transaction. Present where it
   * saves work (PGlite in-process), as `SqlClient.script` is.
   */
  script?(sql: string): Promise<void>;
}

export interface SqlClient extends SqlQueryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` in one transaction: all of it is committed, or none of it. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Runs statements sent as one text, without parameters, as one transaction: the simple query
   * protocol's implicit transaction, which an error anywhere rolls back whole. Values are written
   * into the text with `sqlLiteral`. On PGlite this is one call into the database, against
   * several per statement with parameters, and no per-character encoding of the parameters in
   * JavaScript. Absent where it saves nothing (PostgreSQL).
   */
  script?(sql: string): Promise<void>;
}
