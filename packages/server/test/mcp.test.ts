import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.ts";
import { startServer } from "../src/http/server.ts";
import { openLectern } from "../src/lectern.ts";
import type { PageSummary } from "../src/store/document-store.ts";
import { LECTERN_BIN, SAMPLE_DOCS } from "./cli.ts";
import { createTestApp, expectError, openSampleBook } from "./http-fixture.ts";

/**
 * The MCP server as an agent reaches it: the SDK's own Client over stdio (the compiled
 * `bin/lectern.js mcp`, spawned; `npm run build` first) and over Streamable HTTP against
 * `lectern serve`'s socket, listing and calling the three tools and reading the pages as resources.
 */

let dataDir: string;
let pages: PageSummary[];
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "lectern-mcp-"));
  const lectern = await openLectern(loadConfig({ env: {}, overrides: { dataDir } }));
  try {
    const report = await lectern.ingest(SAMPLE_DOCS);
    expect(report.failures).toEqual([]);
    pages = await lectern.store.pages();
  } finally {
    await lectern.close();
  }
}, 120_000);
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface TextResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as TextResult;
  const text = result.content.map((part) => part.text ?? "").join("\n");
  return { ...result, text };
}

/** What an agent does with the book, the same over either transport. */
async function exerciseBook(transport: Transport) {
  const client = new Client({ name: "lectern-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["ask_docs", "get_page", "search_docs"]);
    const search = tools.find((tool) => tool.name === "search_docs");
    expect(Object.keys(search?.inputSchema.properties ?? {}).sort()).toEqual([
      "filters",
      "query",
      "top_k",
    ]);
    expect(search?.inputSchema.required).toEqual(["query"]);

    // search_docs: sections with title, URL and snippet, best first.
    const found = await call(client, "search_docs", {
      query: "How do I publish messages on a topic?",
      top_k: 3,
    });
    expect(found.isError).toBeFalsy();
    const results = found.structuredContent?.results as {
      title: string;
      url: string;
      snippet: string;
    }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]?.url).toMatch(/\/docs\/ros2\/topics(#|$)/);
    expect(results[0]?.title).toBe("Topics and Messages");
    expect(results[0]?.snippet).toMatch(/message|topic/i);
    expect(found.structuredContent?.covered).toBe(true);
    expect(found.text).toContain(results[0]?.url ?? "?");

    // Filters narrow the sections to part of the book.
    const filtered = await call(client, "search_docs", {
      query: "joint angles of the arm",
      filters: { source_url_prefix: "/docs/kinematics" },
    });
    const filteredResults = filtered.structuredContent?.results as { url: string }[];
    expect(filteredResults.length).toBeGreaterThan(0);
    for (const result of filteredResults) expect(result.url).toMatch(/^\/docs\/kinematics\//);

    // ask_docs: the /chat answer, with numbered citations and their URLs.
    const asked = await call(client, "ask_docs", { question: "What is a ROS 2 topic?" });
    expect(asked.isError).toBeFalsy();
    expect(asked.text).toMatch(/\[1\]/);
    expect(asked.text).toMatch(/Sources:\n\[1\] .+ — \/docs\/\S+/);
    const answer = asked.structuredContent as {
      answer: string;
      mode: string;
      session_id: string;
      sources: { n: number; url: string }[];
    };
    expect(answer.mode).toBe("retrieval_only");
    expect(answer.sources[0]?.n).toBe(1);
    expect(answer.sources.some((source) => /\/docs\/ros2\/topics/.test(source.url))).toBe(true);
    expect(answer.session_id).toMatch(/^[0-9a-f-]{36}$/);

    // A follow-up in the same session leans on the earlier question.
    const followUp = await call(client, "ask_docs", {
      question: "How do I list them from the command line?",
      session_id: answer.session_id,
    });
    expect(followUp.isError).toBeFalsy();
    expect((followUp.structuredContent as { session_id: string }).session_id).toBe(
      answer.session_id,
    );
    expect(followUp.text).toMatch(/ros2 topic list/);

    // An off-topic question is refused, not answered from the closest page.
    const offTopic = await call(client, "ask_docs", {
      question: "What is the best recipe for sourdough bread?",
    });
    expect((offTopic.structuredContent as { mode: string }).mode).toBe("no_results");
    expect((offTopic.structuredContent as { answer: unknown }).answer).toBeNull();

    // A bad session id is the tool's error, naming the rule.
    const badSession = await call(client, "ask_docs", { question: "hi", session_id: "nope" });
    expect(badSession.isError).toBe(true);
    expect(badSession.text).toMatch(/UUID/);

    // get_page: by a section URL (anchor and all), by path, by file path.
    const byUrl = await call(client, "get_page", { url_or_path: results[0]?.url ?? "" });
    expect(byUrl.text.split("\n")[0]).toBe("# Topics and Messages");
    expect(byUrl.text).toContain("Source: /docs/ros2/topics\n");
    expect(byUrl.text).toMatch(/^## /m);
    const topics = pages.find((page) => page.url === "/docs/ros2/topics");
    const byFile = await call(client, "get_page", { url_or_path: topics?.filePath ?? "" });
    expect(byFile.text).toBe(byUrl.text);
    const byMd = await call(client, "get_page", { url_or_path: "/docs/ros2/topics.md" });
    expect(byMd.text).toBe(byUrl.text);
    const missing = await call(client, "get_page", { url_or_path: "/docs/no-such-page" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/No page of the book at "\/docs\/no-such-page"/);

    // Every page is a resource, read as Markdown.
    const { resources } = await client.listResources();
    expect(resources).toHaveLength(pages.length);
    expect(resources.map((resource) => resource.name).sort()).toEqual(
      pages.map((page) => page.title).sort(),
    );
    const resource = resources.find((candidate) => candidate.name === "Topics and Messages");
    expect(resource?.uri).toBe("lectern://book/docs/ros2/topics.md");
    expect(resource?.mimeType).toBe("text/markdown");
    const read = await client.readResource({ uri: resource?.uri ?? "" });
    const content = read.contents[0] as { text?: string; mimeType?: string };
    expect(content.mimeType).toBe("text/markdown");
    expect(content.text).toBe(byUrl.text);
  } finally {
    await client.close();
  }
}

describe("lectern mcp (stdio, the compiled bin)", () => {
  it("lists and calls the three tools and reads pages as resources", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [LECTERN_BIN, "mcp", "--data-dir", dataDir],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await exerciseBook(transport);
    // Nothing but the protocol went to stdout (the client would have failed on it), no errors.
    expect(stderr).not.toMatch(/error/i);
  }, 120_000);

  it("refuses to start on an empty data directory, with a stable code", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "lectern-mcp-empty-"));
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [LECTERN_BIN, "mcp", "--data-dir", empty],
        env: { PATH: process.env.PATH ?? "" },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: "lectern-test", version: "1.0.0" });
      await expect(client.connect(transport)).rejects.toThrow();
      expect(stderr).toMatch(/error \[INDEX_EMPTY\]/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("POST /mcp (Streamable HTTP, a real socket)", () => {
  it("lists and calls the three tools and reads pages as resources", async () => {
    const config = loadConfig({
      env: { LOG_LEVEL: "silent", PORT: "0" },
      overrides: { dataDir },
    });
    const server = await startServer(config);
    try {
      await exerciseBook(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      // Stateless: no session to resume with GET.
      const get = await fetch(`${server.url}/mcp`);
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe("POST /mcp limits", () => {
  const book = { current: undefined as Awaited<ReturnType<typeof openSampleBook>> | undefined };
  beforeAll(async () => {
    book.current = await openSampleBook();
  });
  afterAll(async () => book.current?.cleanup());

  const listTools = (id: number) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
  const post = (app: ReturnType<typeof createTestApp>["app"], body: string) =>
    app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });

  it("answers 429 with Retry-After once a client's MCP requests pass the per-IP burst", async () => {
    const { app } = createTestApp(book.current?.lectern as never, {
      env: { RATE_LIMIT_PER_IP_BURST: "3", RATE_LIMIT_PER_IP_PER_MINUTE: "1" },
    });
    for (let id = 1; id <= 3; id++) {
      const response = await post(app, listTools(id));
      expect(response.status, `request ${id}`).toBe(200);
      const body = (await response.json()) as { result?: { tools: unknown[] } };
      expect(body.result?.tools).toHaveLength(3);
    }
    const limited = await post(app, listTools(4));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectError(limited, 429, "RATE_LIMITED");
  });

  it("counts ask_docs against the chat limits, as a question to /chat", async () => {
    const { app } = createTestApp(book.current?.lectern as never, {
      env: {
        RATE_LIMIT_PER_IP_BURST: "2",
        RATE_LIMIT_PER_IP_PER_MINUTE: "1",
      },
    });
    // One POST /chat takes one of the two chat tokens; the MCP bucket is separate.
    const chat = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "What is a topic?" }),
    });
    expect(chat.status).toBe(200);
    const ask = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "ask_docs", arguments: { question: "What is a topic?" } },
      });
    const first = (await (await post(app, ask(1))).json()) as {
      result: { isError?: boolean; content: { text: string }[] };
    };
    expect(first.result.isError).toBeFalsy();
    const second = (await (await post(app, ask(2))).json()) as {
      result: { isError?: boolean; content: { text: string }[] };
    };
    expect(second.result.isError).toBe(true);
    expect(second.result.content[0]?.text).toMatch(/^error \[RATE_LIMITED\]/);
  });

  it("refuses a body over the size limit before reading it", async () => {
    const { app } = createTestApp(book.current?.lectern as never, {
      env: { RATE_LIMIT_ENABLED: "false", LECTERN_MAX_BODY_BYTES: "2048" },
    });
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "search_docs", arguments: { query: "x".repeat(5_000) } },
    });
    const response = await app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": String(big.length),
      },
      body: big,
    });
    await expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });
});
