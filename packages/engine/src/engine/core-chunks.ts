/**
 * The chunks as a static book's core holds them (sharded-book.ts): without what their page shard
 * holds (text, blocks, content hash), what all chunks of a page share written once, and each
 * chunk's own fields as a row of values by position. A value a row can work out from the chunk
 * before it on its page or from its other fields (the next chunk index, a section named as its
 * heading path ends, a URL that is the page's with another anchor, a heading path that starts as
 * the one before) is written shorter or not at all. Every row is read back as it is written and
 * compared: a chunk that does not read back the same is written as a plain object instead, so
 * the book the engine opens is the book that was built, whatever its chunks hold.
 */
export interface CoreChunks {
  /** Every field a chunk has, in the order chunks give them. */
  keys: string[];
  /** What all chunks of a page share (its file path, title, tags, …): one entry per page. */
  shared: Record<string, unknown>[];
  /** The fields a row holds, in the order of its values. */
  own: string[];
  /** Each chunk, a page's together: a row, or its fields as they are when a row cannot hold them. */
  rows: (CoreRow | PlainRow)[];
}

/** Its page's entry in `shared`, its page shard, then a value for each of `own` (see `CELLS`). */
export type CoreRow = unknown[];

/** A chunk whose fields a row does not give back alike (`blocks: 1` when it has blocks). */
export interface PlainRow {
  page: number;
  shard: number;
  fields: Record<string, unknown>;
}

type Fields = Record<string, unknown>;

/**
 * What a value is read against: the chunk before on the same page, the chunk's own fields so far
 * and its page's shared ones.
 */
interface Context {
  previous: Fields | undefined;
  current: Fields;
  shared: Fields;
}

/** A field of the chunk being read: its own, else its page's. */
function field(context: Context, key: string): unknown {
  return Object.hasOwn(context.current, key) ? context.current[key] : context.shared[key];
}

/**
 * How a field is written in a row. A value of null (or a row that ends before it) is the field
 * worked out by `derive`, or absent for a field without one. A field not named here is written
 * as it is.
 */
interface Cell {
  encode(value: unknown, context: Context): unknown;
  decode(cell: unknown, context: Context): unknown;
  derive?(context: Context): unknown;
}

/** A heading path written as how many headings it shares with `base`, then the rest. */
function prefixed(path: unknown, base: unknown): unknown {
  if (!isStrings(path)) return path;
  const from = isStrings(base) ? base : [];
  let shared = 0;
  while (shared < path.length && shared < from.length && path[shared] === from[shared]) shared++;
  return [shared, ...path.slice(shared)];
}

function unprefixed(cell: unknown, base: unknown): unknown {
  if (!Array.isArray(cell) || typeof cell[0] !== "number") return cell;
  const from = isStrings(base) ? base : [];
  return [...from.slice(0, cell[0]), ...cell.slice(1)];
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** The anchor most headings get: lower case, spaces as hyphens. */
function plainAnchor(heading: unknown): string | undefined {
  return typeof heading === "string" ? heading.toLowerCase().replace(/ /g, "-") : undefined;
}

/** The URL without its anchor. */
function pageOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  const hash = url.indexOf("#");
  return hash < 0 ? url : url.slice(0, hash);
}

/** The heading path's last heading. */
const lastOf = (path: unknown) => (isStrings(path) ? path.at(-1) : undefined);

const CELLS: Record<string, Cell> = {
  headingPath: {
    encode: (value, { previous }) => prefixed(value, previous?.headingPath),
    decode: (cell, { previous }) => unprefixed(cell, previous?.headingPath),
  },
  section: {
    encode: (value, context) => (value === lastOf(field(context, "headingPath")) ? null : value),
    decode: (cell) => cell,
    derive: (context) => lastOf(field(context, "headingPath")),
  },
  chunkIndex: {
    encode: (value, context) => (value === nextIndex(context) ? null : value),
    decode: (cell) => cell,
    derive: nextIndex,
  },
  // "#" + anchor: the page of the chunk before; "#" alone: that page and the section's plain anchor.
  url: {
    encode(value, context) {
      const page = pageOf(context.previous?.url);
      if (typeof value !== "string" || !page || !value.startsWith(`${page}#`)) return value;
      const anchor = value.slice(page.length + 1);
      return anchor === plainAnchor(field(context, "section")) ? "#" : `#${anchor}`;
    },
    decode(cell, context) {
      if (typeof cell !== "string" || cell[0] !== "#") return cell;
      const anchor = cell === "#" ? `#${plainAnchor(field(context, "section"))}` : cell;
      return `${pageOf(context.previous?.url)}${anchor}`;
    },
  },
  // Each as [anchor ("" for its heading's plain anchor), heading (null: its path's last), path].
  sectionAnchors: {
    encode(value, context) {
      if (!Array.isArray(value) || value.length === 0) return value;
      const path = field(context, "headingPath");
      return value.map((item: Fields) => {
        const heading = item?.heading === lastOf(item?.headingPath) ? null : item?.heading;
        const anchor = item?.anchor === plainAnchor(item?.heading) ? "" : item?.anchor;
        return [anchor, heading, prefixed(item?.headingPath, path)];
      });
    },
    decode(cell, context) {
      if (!Array.isArray(cell) || !cell.every(Array.isArray)) return cell;
      const base = field(context, "headingPath");
      return cell.map(([anchor, heading, path]: unknown[]) => {
        const headingPath = unprefixed(path, base);
        const named = heading ?? lastOf(headingPath);
        return { anchor: anchor === "" ? plainAnchor(named) : anchor, heading: named, headingPath };
      });
    },
  },
};

const cellOf = (key: string): Cell | undefined =>
  Object.hasOwn(CELLS, key) ? CELLS[key] : undefined;

function nextIndex({ previous }: Context): number {
  return typeof previous?.chunkIndex === "number" ? previous.chunkIndex + 1 : 0;
}

/**
 * The order rows hold fields in: each field after those its cell reads (section after the
 * heading path, the URL after the section), then the others in the chunks' order.
 */
const CELL_ORDER = ["id", "headingPath", "section", "chunkIndex", "url", "sectionAnchors"];

/** The fields rows hold, of the own fields chunks have: known ones in CELL_ORDER first. */
function rowFields(ownKeys: Iterable<string>): string[] {
  const keys = [...new Set(ownKeys)];
  const rank = (key: string) => {
    const at = CELL_ORDER.indexOf(key);
    return at < 0 ? CELL_ORDER.length : at;
  };
  return keys
    .map((key, at) => ({ key, at }))
    .sort((left, right) => rank(left.key) - rank(right.key) || left.at - right.at)
    .map(({ key }) => key);
}

/**
 * A chunk's own fields as a row's values, or undefined when the row would not read back as the
 * same fields. `previous` is the chunk before on its page, all its fields (undefined for a page's
 * first), `shared` what the page's chunks share.
 */
function encodeRow(
  own: string[],
  fields: Fields,
  previous: Fields | undefined,
  shared: Fields,
): unknown[] | undefined {
  const context: Context = { previous, current: {}, shared };
  const values: unknown[] = [];
  for (const key of own) {
    const has = Object.hasOwn(fields, key);
    const value = fields[key];
    if (has) context.current[key] = value;
    const cell = cellOf(key);
    values.push(has ? (cell ? cell.encode(value, context) : value) : null);
  }
  while (values.length > 0 && values.at(-1) === null) values.pop();
  // Read back as the JSON a reader gets (undefined and NaN in it come back as null).
  const read = decodeRow(own, JSON.parse(JSON.stringify(values)), previous, shared);
  return own.every((key) => sameField(key, read, fields, shared)) ? values : undefined;
}

/** Whether the chunk has the same field either way, its own or else its page's. */
function sameField(key: string, left: Fields, right: Fields, shared: Fields): boolean {
  const [one, other] = [left, right].map((fields) =>
    Object.hasOwn(fields, key) ? fields : Object.hasOwn(shared, key) ? shared : undefined,
  );
  if ((one === undefined) !== (other === undefined)) return false;
  return JSON.stringify(one?.[key]) === JSON.stringify(other?.[key]);
}

/** A row's values as the chunk's own fields (the page's shared ones are not among them). */
function decodeRow(
  own: string[],
  values: unknown[],
  previous: Fields | undefined,
  shared: Fields,
  from = 0,
): Fields {
  const context: Context = { previous, current: {}, shared };
  for (let at = 0; at < own.length; at++) {
    const key = own[at] as string;
    const cell = cellOf(key);
    const stored = from + at < values.length ? values[from + at] : null;
    const value =
      stored === null ? cell?.derive?.(context) : cell ? cell.decode(stored, context) : stored;
    if (value !== undefined) context.current[key] = value;
  }
  return context.current;
}

/** A chunk as the core gives it: its fields (its page's shared ones among them) and its shard. */
export interface CoreChunk {
  fields: Fields;
  shard: number;
  /** Whether it has blocks, which its page shard holds. */
  blocks: boolean;
}

/**
 * The core's chunks read back, in the book's order: each one's fields set, in the order of the
 * core's keys, on the object `create` gives (a plain one by default).
 */
export function readCoreChunks(
  { keys, shared, own, rows }: CoreChunks,
  create: (blocks: boolean) => Fields = () => ({}),
): CoreChunk[] {
  const chunks: CoreChunk[] = [];
  let previous: Fields | undefined;
  let previousPage = -1;
  for (const row of rows) {
    const page = Array.isArray(row) ? (row[0] as number) : row.page;
    const pageFields = shared[page] ?? {};
    const before = page === previousPage ? previous : undefined;
    const ownFields = Array.isArray(row) ? decodeRow(own, row, before, pageFields, 2) : row.fields;
    const blocks = ownFields.blocks === 1;
    const fields = create(blocks);
    for (const key of keys) {
      if (Object.hasOwn(ownFields, key)) fields[key] = ownFields[key];
      else if (Object.hasOwn(pageFields, key)) fields[key] = pageFields[key];
    }
    chunks.push({ fields, shard: Array.isArray(row) ? (row[1] as number) : row.shard, blocks });
    previous = fields;
    previousPage = page;
  }
  return chunks;
}

/**
 * The core's chunks of a book's (`pages`: each page's chunks, in the book's order, without what
 * their page shard holds; `shardOf` the page shard of each, by place in the book).
 */
export function writeCoreChunks(pages: Fields[][], shardOf: (at: number) => number): CoreChunks {
  const keys = new Set<string>();
  const ownKeys = new Set<string>();
  const shared = pages.map((page) => {
    for (const fields of page) for (const key of Object.keys(fields)) keys.add(key);
    const common = sharedFields(page);
    for (const fields of page)
      for (const key of Object.keys(fields)) if (!Object.hasOwn(common, key)) ownKeys.add(key);
    return common;
  });
  const own = rowFields(ownKeys);
  const rows: CoreChunks["rows"] = [];
  let at = 0;
  pages.forEach((page, pageAt) => {
    const common = shared[pageAt] ?? {};
    page.forEach((fields, place) => {
      const ownFields: Fields = {};
      for (const key of Object.keys(fields))
        if (!Object.hasOwn(common, key)) ownFields[key] = fields[key];
      const previous = place > 0 ? page[place - 1] : undefined;
      const shard = shardOf(at++);
      const values = encodeRow(own, ownFields, previous, common);
      rows.push(values ? [pageAt, shard, ...values] : { page: pageAt, shard, fields: ownFields });
    });
  });
  return { keys: [...keys].filter((key) => key !== "blocks"), shared, own, rows };
}

/** The fields every record holds with the same value. */
function sharedFields(records: Fields[]): Fields {
  const [first, ...rest] = records;
  const common: Fields = {};
  for (const [key, value] of Object.entries(first ?? {})) {
    if (key === "blocks") continue;
    const json = JSON.stringify(value);
    if (rest.every((record) => Object.hasOwn(record, key) && JSON.stringify(record[key]) === json))
      common[key] = value;
  }
  return common;
}
