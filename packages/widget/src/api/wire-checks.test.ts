import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ErrorBodySchema,
  parseStreamEvent,
  SearchResponseSchema,
  STREAM_EVENT_NAMES,
} from "@lectern/protocol";
import { describe, expect, it } from "vitest";
import {
  answerEvents,
  errorEvent,
  NO_RESULTS_EVENTS,
  OVERVIEW_EVENTS,
  SELECTION_SOURCE,
  smallTalkEvents,
  sourcesEvent,
} from "../test/sse-fixtures.ts";
import { createSseParser } from "./sse-parser.ts";
import {
  isStreamEventName,
  readErrorBody,
  readQuestions,
  readSearchResponse,
  readStreamEvent,
} from "./wire-checks.ts";

/** The events of every fixture stream, as name and parsed JSON. */
function fixtureEvents(): { name: string; json: unknown }[] {
  const streams = [
    answerEvents(),
    answerEvents({ lowConfidence: true, confidence: "low" }),
    [sourcesEvent({ mode: "selected_text", sources: [SELECTION_SOURCE] })],
    NO_RESULTS_EVENTS,
    smallTalkEvents("greeting"),
    OVERVIEW_EVENTS,
    answerEvents({ route: null }),
    [errorEvent("TIMEOUT", "The answer took too long.")],
  ];
  const events: { name: string; json: unknown }[] = [];
  for (const stream of streams) {
    const parser = createSseParser((message) =>
      events.push({ name: message.event, json: JSON.parse(message.data) }),
    );
    parser.feed(stream.join(""));
    parser.end();
  }
  return events;
}

const SEARCH_RESPONSE = {
  query: "urdf xac",
  results: [
    {
      page_title: "Describing a Robot with URDF",
      section: "Reducing repetition with xacro",
      url: "/docs/description/urdf#xacro",
      snippet: "A robot with four identical wheels… xacro (XML macros) adds properties",
      highlights: [[36, 41]],
      score: 12.5,
    },
    {
      page_title: "Robotics Primer",
      section: null,
      url: "/docs/",
      snippet: "Welcome",
      highlights: [],
      score: 0.4,
    },
  ],
  took_ms: 1.2,
};

const ERROR_BODY = {
  error_code: "RATE_LIMITED",
  message: "Too many requests.",
  request_id: "19e27af2-330a-4664-91ba-6707e4b7b5bf",
  details: { retry_after: 12 },
};

/** Values put in place of each field in turn: wrong types, out of range, too long, missing. */
const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  "text",
  "",
  "x".repeat(201),
  "19e27af2-330a-4664-c1ba-6707e4b7b5bf", // a UUID with a wrong variant
  "00000000-0000-0000-0000-000000000000",
  0,
  -1,
  0.5,
  1.5,
  3,
  true,
  false,
  [],
  [1, 2],
  [1, 2, 3],
  ["a"],
  {},
  { a: 1 },
];

/** The value itself, then one copy per field path and replacement. */
function* variants(value: unknown): Generator<unknown> {
  yield value;
  if (typeof value !== "object" || value === null) return;
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  for (const key of keys) {
    const child = (value as Record<string | number, unknown>)[key];
    const replacements = [...REPLACEMENTS, ...[...variants(child)].slice(1)];
    for (const replacement of replacements) {
      if (Array.isArray(value)) {
        const copy = [...value];
        if (replacement === undefined) copy.splice(key as number, 1);
        else copy[key as number] = replacement;
        yield copy;
      } else {
        const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
        if (replacement === undefined) delete copy[key];
        else copy[key] = replacement;
        yield copy;
      }
    }
  }
}

const accepts = (read: () => unknown) => {
  try {
    return read() !== null;
  } catch {
    return false;
  }
};

describe("the widget's wire checks agree with the protocol's zod schemas", () => {
  it("on every stream event of the fixtures and thousands of broken copies", () => {
    let compared = 0;
    let rejected = 0;
    for (const { name, json } of fixtureEvents()) {
      for (const variant of variants(json)) {
        const data = JSON.stringify(variant ?? null);
        const zod = accepts(() => parseStreamEvent(name, data));
        const widget = isStreamEventName(name) && accepts(() => readStreamEvent(name, data));
        expect({ name, variant, accepted: widget }).toEqual({ name, variant, accepted: zod });
        compared++;
        if (!zod) rejected++;
      }
    }
    // Both sides see valid and invalid events, so agreement is not agreement on everything.
    expect(compared).toBeGreaterThan(5_000);
    expect(rejected).toBeGreaterThan(compared / 4);
  });

  it("on error bodies", () => {
    for (const variant of variants(ERROR_BODY)) {
      expect({ variant, accepted: readErrorBody(variant) !== null }).toEqual({
        variant,
        accepted: ErrorBodySchema.safeParse(variant).success,
      });
    }
    expect(readErrorBody(ERROR_BODY)).toEqual(ERROR_BODY);
  });

  it("on search responses", () => {
    for (const variant of variants(SEARCH_RESPONSE)) {
      expect({ variant, accepted: readSearchResponse(variant) !== null }).toEqual({
        variant,
        accepted: SearchResponseSchema.safeParse(variant).success,
      });
    }
  });

  it("know the same event names", () => {
    for (const name of STREAM_EVENT_NAMES) expect(isStreamEventName(name)).toBe(true);
    expect(isStreamEventName("progress")).toBe(false);
    expect(isStreamEventName("toString")).toBe(false);
  });
});

describe("readQuestions", () => {
  it("keeps non-blank strings, trimmed, up to the limit; anything else is none", () => {
    expect(readQuestions([" What is a node? ", "", 3, "Why?", "How?", "When?"], 3)).toEqual([
      "What is a node?",
      "Why?",
      "How?",
    ]);
    expect(readQuestions("What?", 3)).toEqual([]);
    expect(readQuestions(undefined, 3)).toEqual([]);
  });
});

describe("the widget's code", () => {
  it("takes only types from @lectern/protocol, so zod stays out of the script", () => {
    const root = join(import.meta.dirname, "..");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
      (file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.startsWith("test"),
    );
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const source = readFileSync(join(root, file), "utf8");
      const imports = source.match(
        /import\s+(type\s+)?[^;]*?from\s+"(@lectern\/protocol|zod[^"]*)"/g,
      );
      for (const statement of imports ?? []) {
        expect(statement, file).toMatch(/^import\s+type\s/);
      }
    }
  });
});
