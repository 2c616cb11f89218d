// Over 300 lines on purpose: the request generator (paths, methods, headers, bodies) and the checks read together.

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { ERROR_CODES } from "@lectern/engine/errors";
import { seededRandom } from "@lectern/engine/search/test-builders";
import { loadConfig } from "../src/config/config.ts";
import { COMPAT_SCHEMAS } from "../src/http/compat/schemas.ts";
import { ROUTES } from "../src/http/route-table.ts";
import { ChatResponseSchema, ErrorBodySchema, HealthResponseSchema } from "../src/http/wire.ts";
import { openLectern } from "../src/lectern.ts";
import { SAMPLE_DOCS } from "./cli.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";

/**
 * An HTTP fuzzer for `lectern serve`: malformed requests on every route of the route table (bad
 * paths and %-escapes, wrong methods, odd headers, broken, oversized and mistyped JSON bodies) sent
 * over loopback to a server in a child process. Every answer must be below 500, every error must be
 * in the documented shape (`{error_code, message, request_id}` with a known code and the same id
 * in X-Request-Id), and the process must still be up at the end. Deterministic for a seed.
 */

export interface FuzzOptions {
  /** Requests to send. */
  count: number;
  /** Stop sending after this long even if `count` is not reached. */
  maxSeconds: number;
  seed: number;
  /** Requests in flight at once. */
  concurrency: number;
  onProgress?: (sent: number) => void;
}

export interface FuzzFailure {
  request: string;
  problem: string;
}

export interface FuzzReport {
  sent: number;
  seconds: number;
  byStatus: Record<string, number>;
  /** Requests per route of the table ("POST /chat"), and "other" for paths outside it. */
  byRoute: Record<string, number>;
  /** Requests carrying each kind of fault (most carry several). */
  byFault: Record<string, number>;
  failures: FuzzFailure[];
  /** The server process was gone at the end (or a request found it gone). */
  crashed: boolean;
  /** The time bound ended the run before `count` requests. */
  stoppedByTime: boolean;
}

export const ADMIN_TOKEN = "fuzz-admin-token-0123456789";

/** The sample book ingested into a fresh data directory, served by `lectern serve` on loopback. */
export async function startFuzzTarget(): Promise<ServerProcess & { cleanup(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "lectern-fuzz-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  try {
    await lectern.ingest(SAMPLE_DOCS);
  } finally {
    await lectern.close();
  }
  const server = await startServerProcess(
    ["--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir],
    {
      LOG_LEVEL: "error",
      // The limits would answer most requests with 429 before they reach a handler.
      RATE_LIMIT_ENABLED: "false",
      LECTERN_ADMIN_TOKEN: ADMIN_TOKEN,
    },
  );
  return {
    ...server,
    async cleanup() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** The route of the table this request was made from ("other" when none). */
  route: string;
  /** What is malformed about it: "path", "method", "parameter", "query", "header", "content-type", "body". */
  faults: string[];
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export async function runFuzz(target: ServerProcess, options: FuzzOptions): Promise<FuzzReport> {
  const url = new URL(target.url);
  if (!["127.0.0.1", "[::1]", "localhost"].includes(url.hostname)) {
    throw new Error(`The fuzzer only sends to loopback, not ${url.hostname}.`);
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const started = performance.now();
  const report: FuzzReport = {
    sent: 0,
    seconds: 0,
    byStatus: {},
    byRoute: {},
    byFault: {},
    failures: [],
    crashed: false,
    stoppedByTime: false,
  };
  const known = await knownAnswer(url, agent);
  const random = mulberry32(options.seed);
  const generate = requestGenerator(random, known);
  let next = 0;
  const worker = async () => {
    while (next < options.count && !report.crashed) {
      if ((performance.now() - started) / 1000 > options.maxSeconds) {
        report.stoppedByTime = true;
        return;
      }
      next++;
      const request = generate();
      report.byRoute[request.route] = (report.byRoute[request.route] ?? 0) + 1;
      for (const fault of request.faults) report.byFault[fault] = (report.byFault[fault] ?? 0) + 1;
      try {
        const response = await send(url, agent, request);
        report.byStatus[response.status] = (report.byStatus[response.status] ?? 0) + 1;
        const problem = checkResponse(request, response);
        if (problem) report.failures.push({ request: describe(request), problem });
      } catch (error) {
        report.byStatus.none = (report.byStatus.none ?? 0) + 1;
        report.failures.push({
          request: describe(request),
          problem: `no response: ${(error as Error).message}`,
        });
        if (!target.alive()) report.crashed = true;
      }
      report.sent++;
      if (report.sent % 500 === 0) options.onProgress?.(report.sent);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  agent.destroy();
  report.crashed ||= !target.alive();
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

/** One real answer, so that some votes name an answer that exists and reach the store. */
async function knownAnswer(url: URL, agent: http.Agent) {
  const response = await send(url, agent, {
    method: "POST",
    path: "/chat",
    headers: { "content-type": "application/json" },
    body: Buffer.from(JSON.stringify({ query: "What is a node?" })),
    route: "POST /chat",
    faults: [],
  });
  const answer = ChatResponseSchema.parse(JSON.parse(response.body.toString("utf8")));
  return { sessionId: answer.session_id, messageId: answer.message_id ?? randomUUID() };
}

function send(url: URL, agent: http.Agent, request: FuzzRequest): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        method: request.method,
        path: request.path,
        headers: {
          ...request.headers,
          ...(request.body ? { "content-length": String(request.body.length) } : {}),
        },
        agent,
        timeout: 60_000,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          }),
        );
        incoming.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error("no answer within 60 s")));
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** What is wrong with this answer, or undefined. */
export function checkResponse(request: FuzzRequest, response: FuzzResponse): string | undefined {
  if (response.status >= 500 && !isDocumentedUnavailable(request, response)) {
    return `status ${response.status}: ${response.body.toString("utf8").slice(0, 300)}`;
  }
  if (response.status < 400 || request.method === "HEAD") return undefined;
  const route = routeOf(request);
  const documented = route?.responses[response.status];
  // A route's own non-JSON answer (the widget script's 404, /ready's 503) has no error body.
  if (documented && documented.schema === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(response.body.toString("utf8"));
  } catch {
    return `status ${response.status} without a JSON body: ${response.body.toString("utf8").slice(0, 200)}`;
  }
  if (documented?.schema === "HealthResponse") {
    return HealthResponseSchema.safeParse(json).success ? undefined : "not a health response";
  }
  // S4's requests on POST /chat (a body naming query_text or response_format) get S4's errors.
  // (A body the server cannot read as JSON is not known to be S4's: Lectern's shape then.)
  if (
    route?.path === "/chat" &&
    isS4Body(request.body) &&
    COMPAT_SCHEMAS.S4Error.safeParse(json).success
  ) {
    return undefined;
  }
  // A seed's compatibility route answers errors in that seed's own shape (S0, S3).
  const seedError = Object.values(route?.responses ?? {}).find(
    (spec) => spec.schema === "S0Error" || spec.schema === "S3Error",
  )?.schema;
  // A path the router does not match (an empty id) is answered by the app, in Lectern's shape.
  if (
    (seedError === "S0Error" || seedError === "S3Error") &&
    COMPAT_SCHEMAS[seedError].safeParse(json).success
  ) {
    return undefined;
  }
  const body = ErrorBodySchema.safeParse(json);
  if (!body.success)
    return `status ${response.status}, not the error shape: ${JSON.stringify(json)}`;
  if (!(body.data.error_code in ERROR_CODES)) return `unknown error code ${body.data.error_code}`;
  if (response.headers["x-request-id"] !== body.data.request_id) {
    return "X-Request-Id differs from the body's request_id";
  }
  return undefined;
}

function isS4Body(body: Buffer | undefined): boolean {
  const text = body?.toString("utf8") ?? "";
  return text.includes('"query_text"') || text.includes('"response_format"');
}

/** /health answers 503 when every service is down: documented, and not a failure of the server. */
function isDocumentedUnavailable(request: FuzzRequest, response: FuzzResponse): boolean {
  return routeOf(request)?.responses[response.status]?.schema === "HealthResponse";
}

function routeOf(request: FuzzRequest) {
  return ROUTES.find((route) => `${route.method} ${route.path}` === request.route);
}

function describe(request: FuzzRequest): string {
  const body = request.body
    ? ` body(${request.body.length} B)=${JSON.stringify(request.body.subarray(0, 160).toString("latin1"))}`
    : "";
  return `${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.headers).slice(0, 300)}${body}`;
}

type Random = () => number;

/** A small seeded generator (mulberry32): the same seed sends the same requests. */
export const mulberry32: (seed: number) => Random = seededRandom;

const METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"];

const SEGMENTS = [
  "%ff",
  "%%",
  "%",
  "%E0%A4%A",
  "%c0%af",
  "%ed%a0%80",
  "%00",
  "..",
  "..%2f..%2fetc%2fpasswd",
  "%2F",
  "docs",
  "x".repeat(3_000),
  "%F0%9F%98%80",
  ";a=b",
  "index.html",
  "%zz",
];

const PARAMETER_VALUES = [
  () => randomUUID(),
  () => randomUUID().toUpperCase(),
  () => "6ba7b810-9dad-11d1-80b4-00c04fd430c8", // a UUID v1
  () => "not-a-uuid",
  () => "",
  () => "%ff%fe",
  () => "00000000-0000-4000-8000-000000000000%00",
  () => "a".repeat(2_000),
];

const QUERIES = [
  "",
  "?limit=0",
  "?limit=-1",
  "?limit=1.5",
  "?limit=1e3",
  "?limit=abc",
  "?limit=101",
  "?limit=%ff",
  "?limit=99999999999999999999",
  "?limit=2&limit=3",
  "?format=csv",
  "?format=xml",
  "?format=%00",
  "?%zz=1",
  "?=",
  "?a[b]=c&__proto__[x]=1",
];

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "application/problem+json",
  "text/plain",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "",
  "application/jsonx",
  "APPLICATION/JSON",
];

/** Where an emoji starts in turn: each offset around the 200- and 500-unit cuts of snippets. */
const AROUND_CUTS = [195, 495].flatMap((first) =>
  Array.from({ length: 11 }, (_, step) => first + step),
);
let aroundCut = 0;

const VALUES: (() => unknown)[] = [
  () => null,
  () => true,
  () => 0,
  () => -1,
  () => 1.5,
  () => 1e308,
  () => -1e308,
  () => "",
  () => " \t\n",
  () => "\u0000",
  () => "\ud800 lone \udfff",
  () => `${"a".repeat(AROUND_CUTS[aroundCut++ % AROUND_CUTS.length] ?? 0)}🤖 and the servo holds`,
  () => "What is a node?",
  () => "x".repeat(100),
  () => "q".repeat(40_000),
  () => "s".repeat(70_000),
  () => [],
  () => ({}),
  () => [1, "2", null],
  () => ({ source_url_prefix: 5, section: ["x"] }),
  () => ({ nested: { deeper: { deepest: [{}] } } }),
  () => "<script>alert(1)</script>",
  () => '=HYPERLINK("https://example.com")',
  () => "'; DROP TABLE sessions; --",
  () => randomUUID(),
  () => "up",
  () => "down",
];

const CHAT_FIELDS = [
  "query",
  "question",
  "query_text",
  "selected_text",
  "session_id",
  "filters",
  "source_url",
  "response_format",
  "top_k",
];
const FEEDBACK_FIELDS = ["session_id", "message_id", "rating", "comment"];

function requestGenerator(random: Random, known: { sessionId: string; messageId: string }) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chance = (probability: number) => random() < probability;

  const WELL_FORMED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

  /** The route's path with its parameters filled in, and whether one of them is malformed. */
  const fillPath = (template: string) => {
    let malformed = false;
    const filled = template.replace(/\{\w+\}/g, () => {
      const value = chance(0.15) ? known.sessionId : pick(PARAMETER_VALUES)();
      malformed ||= !WELL_FORMED_ID.test(value);
      return value;
    });
    return { filled, malformed };
  };

  /** The path, sometimes moved off its route (`moved`), and a query string. */
  const noisyPath = (base: string) => {
    let target = base;
    if (chance(0.15)) target += `/${pick(SEGMENTS)}`;
    if (chance(0.05)) target = `/${target}`;
    if (chance(0.05)) target += "/";
    if (chance(0.05)) target = target.toUpperCase();
    const moved = target !== base;
    const query = chance(0.25) ? pick(QUERIES) : "";
    return { target: target + query, moved, query: query !== "" };
  };

  const validBody = (schema: string | undefined): Record<string, unknown> =>
    schema === "FeedbackRequest"
      ? {
          session_id: known.sessionId,
          message_id: chance(0.5) ? known.messageId : randomUUID(),
          rating: chance(0.5) ? "up" : "down",
          comment: "Clear enough.",
        }
      : {
          query: "How do I publish messages on a topic?",
          ...(chance(0.3) ? { session_id: chance(0.5) ? known.sessionId : randomUUID() } : {}),
          ...(chance(0.2) ? { selected_text: "A node is a process that computes." } : {}),
          ...(chance(0.1) ? { top_k: 3 } : {}),
        };

  const mutateObject = (object: Record<string, unknown>, fields: string[]) => {
    const changes = 1 + Math.floor(random() * 3);
    for (let change = 0; change < changes; change++) {
      const field = pick(fields);
      const roll = random();
      if (roll < 0.6) object[field] = pick(VALUES)();
      else if (roll < 0.75) delete object[field];
      else if (roll < 0.85) object[field.toUpperCase()] = pick(VALUES)();
      else if (roll < 0.92) {
        Object.defineProperty(object, pick(["__proto__", "constructor"]), {
          value: { polluted: true, prototype: { polluted: true } },
          enumerable: true,
          configurable: true,
          writable: true,
        });
      } else object[`unknown_${change}`] = pick(VALUES)();
    }
    return object;
  };

  /** The body's bytes, often mangled; `undefined` bytes mean the JSON was sent as it is. */
  const rawBody = (json: string): Buffer | undefined => {
    const roll = random();
    if (roll < 0.15) return Buffer.from(json.slice(0, Math.floor(random() * json.length)));
    if (roll < 0.25) {
      const bytes = Buffer.from(json);
      const at = Math.floor(random() * bytes.length);
      return Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(pick(INVALID_BYTES)),
        bytes.subarray(at),
      ]);
    }
    if (roll < 0.3) return Buffer.from(`\ufeff${json}`);
    if (roll < 0.4)
      return Buffer.from(pick(["null", "[]", "1", '"text"', "", " ", "true", "{}", '{"query":}']));
    if (roll < 0.45) {
      const depth = pick([100, 10_000, 200_000]);
      return Buffer.from(`${"[".repeat(depth)}${"]".repeat(depth)}`);
    }
    if (roll < 0.48) {
      const depth = pick([1_000, 100_000]);
      return Buffer.from(`${'{"query":'.repeat(depth)}"x"${"}".repeat(depth)}`);
    }
    if (roll < 0.5) return Buffer.from('{"query":"a","query":1e999999,"top_k":-0}');
    if (roll < 0.51) return Buffer.from(`${" ".repeat(600 * 1024)}${json}`);
    return undefined;
  };

  return (): FuzzRequest => {
    // Every request carries at least one fault; what each one carries is counted in the report.
    const faults = new Set<string>();
    const onTable = chance(0.9);
    const route = onTable ? pick(ROUTES) : undefined;
    if (!route) faults.add("path");
    const method = route && chance(0.7) ? route.method : pick(METHODS);
    if (route && method !== route.method) faults.add("method");
    let base = `/${pick(SEGMENTS)}${chance(0.5) ? `/${pick(SEGMENTS)}` : ""}`;
    if (route) {
      const { filled, malformed } = fillPath(route.path);
      base = filled;
      if (malformed) faults.add("parameter");
    }
    const headers: Record<string, string> = {};
    if (chance(0.8)) headers["content-type"] = pick(CONTENT_TYPES);
    if (chance(0.3))
      headers.accept = pick([
        "text/html",
        "application/json",
        "*/*",
        "text/html;q=0.1, application/json",
      ]);
    if (chance(0.2)) {
      headers["x-request-id"] = pick([randomUUID(), "not-a-uuid", "", "x".repeat(4_000), "%ff"]);
      if (!WELL_FORMED_ID.test(headers["x-request-id"])) faults.add("header");
    }
    if (chance(0.2)) {
      headers.authorization = pick([
        `Bearer ${ADMIN_TOKEN}`,
        "Bearer",
        "Bearer short",
        "Basic dXNlcjpwYXNz",
        `Bearer ${"t".repeat(2_000)}`,
      ]);
      if (headers.authorization !== `Bearer ${ADMIN_TOKEN}`) faults.add("header");
    }
    if (chance(0.05)) {
      headers["x-forwarded-for"] = pick(["::1", "not an ip", "1.2.3.4, 5.6.7.8"]);
      if (headers["x-forwarded-for"] === "not an ip") faults.add("header");
    }
    if (chance(0.05)) headers.origin = pick(["https://evil.example", "null"]);
    if (chance(0.05)) headers["if-none-match"] = pick(['"abc"', "*", 'W/"x"']);
    if (chance(0.03)) {
      headers["content-encoding"] = "gzip";
      faults.add("header");
    }

    let body: Buffer | undefined;
    const wantsBody = route?.requestBody !== undefined;
    if (method !== "GET" && method !== "HEAD" && (wantsBody || chance(0.1))) {
      if (!wantsBody) faults.add("body");
      const fields = route?.requestBody === "FeedbackRequest" ? FEEDBACK_FIELDS : CHAT_FIELDS;
      const object = validBody(route?.requestBody);
      if (chance(0.85)) {
        mutateObject(object, fields);
        faults.add("body");
      }
      const json = JSON.stringify(object);
      const mangled = rawBody(json);
      if (mangled) faults.add("body");
      body = mangled ?? Buffer.from(json);
      const type = headers["content-type"];
      if (type === undefined || !/^application\/json/i.test(type)) faults.add("content-type");
    }
    let { target, moved, query } = noisyPath(base);
    if (moved) faults.add("path");
    if (query) faults.add("query");
    if (faults.size === 0) {
      if (body) {
        body = body.subarray(0, Math.floor(body.length / 2));
        faults.add("body");
      } else {
        target += pick(QUERIES.filter((candidate) => candidate !== ""));
        faults.add("query");
      }
    }
    return {
      method,
      path: target,
      headers,
      body,
      route: route && !moved && method === route.method ? `${route.method} ${route.path}` : "other",
      faults: [...faults],
    };
  };
}

const INVALID_BYTES = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0x00],
  [0xe2, 0x82],
];
