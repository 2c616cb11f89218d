import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import {
  expectError,
  memoryHistoryApp,
  postJson,
  sampleBookForSuite,
} from "../../test/http-fixture.ts";

const book = sampleBookForSuite();

async function scrape(
  app: ReturnType<typeof memoryHistoryApp>,
  headers: Record<string, string> = {},
) {
  const response = await app.request("/metrics", { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  const text = await response.text();
  // The parser checks the whole text is valid exposition format (it throws on a bad line); it
  // folds labelled histograms together, so their counts are read from the `_count` lines.
  const families = parsePrometheusTextFormat(text);
  return Object.assign(new Map(families.map((family) => [family.name, family])), { text });
}

describe("GET /metrics", () => {
  it("reports requests by route and status, answers by mode, stage latency and the index", async () => {
    const app = memoryHistoryApp(book.lectern, {
      RATE_LIMIT_PER_IP_BURST: "2",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1",
    });
    const before = await scrape(app);
    expect(before.get("lectern_answers_total")?.metrics ?? []).toEqual([]);
    expect(Number(before.get("lectern_index_chunks")?.metrics[0]?.value)).toBeGreaterThan(100);

    await postJson(app, "/chat", { query: "How do I publish on a topic?" });
    await postJson(app, "/chat", { query: "What is the capital of Australia?" });
    await expectError(
      await postJson(app, "/chat", { query: "What is a node?" }),
      429,
      "RATE_LIMITED",
    );
    await app.request("/nope");

    const after = await scrape(app);
    const answers = after.get("lectern_answers_total")?.metrics ?? [];
    const byMode = (mode: string) =>
      answers
        .filter((sample) => sample.labels?.mode === mode)
        .reduce((n, s) => n + Number(s.value), 0);
    expect(byMode("retrieval_only")).toBe(1);
    expect(byMode("no_results")).toBe(1);

    expect(after.get("lectern_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    const count = (route: string, status: string) => {
      const line = after.text
        .split("\n")
        .find(
          (candidate) =>
            candidate.startsWith("lectern_http_request_duration_seconds_count{") &&
            candidate.includes(`route="${route}"`) &&
            candidate.includes(`status="${status}"`),
        );
      return Number(line?.split(" ").at(-1) ?? 0);
    };
    expect(count("/chat", "200")).toBe(2);
    expect(count("/chat", "429")).toBe(1);
    expect(count("unmatched", "404")).toBe(1);
    const limited = after.get("lectern_rate_limited_total")?.metrics ?? [];
    expect(limited.find((sample) => sample.labels?.scope === "/chat")?.value).toBe("1");
    expect(after.text).toMatch(/^lectern_stage_duration_seconds_count\{stage="retrieve"\} 2$/m);
    expect(after.text).toMatch(/^lectern_stage_duration_seconds_count\{stage="total"\} 2$/m);
  });

  it("asks for the bearer token when one is configured", async () => {
    const token = "metrics-token-0123456789";
    const app = memoryHistoryApp(book.lectern, { LECTERN_METRICS_TOKEN: token });
    await expectError(await app.request("/metrics"), 401, "UNAUTHORIZED");
    await expectError(
      await app.request("/metrics", {
        headers: { authorization: "Bearer wrong-token-0123456789" },
      }),
      401,
      "UNAUTHORIZED",
    );
    const families = await scrape(app, { authorization: `Bearer ${token}` });
    expect(families.has("lectern_http_request_duration_seconds")).toBe(true);
  });
});
