import { createError } from "@lectern/engine/errors";

/**
 * A value written as an SQL literal, for statements sent without parameters. Text is quoted
 * with its quotes doubled and, when it holds a backslash, as an escape string (E'…') with its
 * backslashes doubled, so it reads back the same whatever `standard_conforming_strings` is.
 * PostgreSQL text cannot hold a NUL character, and a NUL would cut the statement short: such
 * text is refused.
 */
export type LiteralValue = string | number | boolean | null;

export function sqlLiteral(value: LiteralValue): string {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw createError("INTERNAL_ERROR", `Cannot store the number ${value} in the database.`);
    }
    return String(value);
  }
  if (value.includes("\u0000")) {
    throw createError("VALIDATION_ERROR", "Text with a NUL character cannot be stored.");
  }
  const quoted = value.replaceAll("'", "''");
  return value.includes("\\") ? `E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
}

/**
 * `sql` with each parameter (`$1`, `$2`, …) replaced by its value as a literal (`sqlLiteral`), to
 * send a parameterised statement as text. Only for the program's own statements, in which every
 * `$` followed by digits is a parameter (no dollar-quoted text, no `$` in identifiers).
 */
export function withLiterals(sql: string, params: readonly LiteralValue[]): string {
  return sql.replace(/\$(\d+)/g, (_placeholder, digits: string) => {
    const value = params[Number(digits) - 1];
    if (value === undefined) {
      throw createError("INTERNAL_ERROR", `The statement has no value for $${digits}.`);
    }
    return sqlLiteral(value);
  });
}
