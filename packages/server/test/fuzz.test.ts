import { describe, expect, it } from "vitest";
import { ROUTES } from "../src/http/route-table.ts";
import { checkResponse, type FuzzRequest, runFuzz, startFuzzTarget } from "./http-fuzz.ts";

/** `npm run fuzz` with fewer requests: the same generator, server and checks. */

describe("HTTP fuzzing over loopback", () => {
  it("answers malformed requests on every route below 500, in the documented error shape, and stays up", async () => {
    const target = await startFuzzTarget();
    try {
      const report = await runFuzz(target, {
        count: 1_000,
        maxSeconds: 240,
        seed: 7,
        concurrency: 4,
      });
      expect(report.failures.slice(0, 10)).toEqual([]);
      expect(report.crashed).toBe(false);
      expect(report.stoppedByTime).toBe(false);
      expect(report.sent).toBe(1_000);
      for (const route of ROUTES) {
        expect(report.byRoute[`${route.method} ${route.path}`], route.path).toBeGreaterThan(0);
      }
    } finally {
      await target.cleanup();
    }
  });

  it("flags answers of 500 or more and errors outside the documented shape", () => {
    const request: FuzzRequest = {
      method: "POST",
      path: "/chat",
      headers: {},
      body: undefined,
      route: "POST /chat",
      faults: ["body"],
    };
    const requestId = "0f1e2d3c-4b5a-4697-8877-665544332211";
    const json = (status: number, body: unknown, id = requestId) => ({
      status,
      headers: { "x-request-id": id },
      body: Buffer.from(JSON.stringify(body)),
    });
    const error = {
      error_code: "EMPTY_QUERY",
      message: "Query cannot be empty.",
      request_id: requestId,
    };
    expect(checkResponse(request, json(400, error))).toBeUndefined();
    expect(checkResponse(request, json(500, { ...error, error_code: "INTERNAL_ERROR" }))).toMatch(
      /status 500/,
    );
    expect(checkResponse(request, json(400, { error: "bad" }))).toMatch(/not the error shape/);
    expect(checkResponse(request, json(400, { ...error, error_code: "MADE_UP" }))).toMatch(
      /unknown error code/,
    );
    expect(
      checkResponse(request, json(400, error, "11111111-2222-4333-8444-555555555555")),
    ).toMatch(/X-Request-Id/);
    expect(
      checkResponse(request, { status: 400, headers: {}, body: Buffer.from("Bad Request") }),
    ).toMatch(/without a JSON body/);
  });
});
