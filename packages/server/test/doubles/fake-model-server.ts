import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FOLLOW_UP_SYSTEM_PROMPT } from "../../src/llm/prompts.ts";

/**
 * A local server speaking the OpenAI HTTP API (chat completions with and without streaming, and
 * embeddings), for tests and benchmarks. Each request takes the next queued scenario, which can
 * inject faults: an HTTP status with Retry-After, a slow first token, a stream cut or stalled
 * mid-answer, malformed JSON or an empty answer. Requests for follow-up questions (made beside an
 * answer, recognised by their system prompt) have a queue and a record of their own, so a test's
 * scenarios for answers are never taken by them.
 */

export interface Scenario {
  /** Answer text; by default one built from the first passage of the prompt. */
  text?: string;
  /**
   * Answer with what this makes of the request's prompt (the text of every message, the system
   * prompt first): `(prompt) => prompt` is a model that echoes its input.
   */
  reply?: (prompt: string) => string;
  /** Respond with this status and an OpenAI-style error body instead of an answer. */
  status?: number;
  retryAfter?: string;
  /** Milliseconds before the first token (or before the JSON body without streaming). */
  firstTokenDelayMs?: number;
  /** Milliseconds between streamed chunks. */
  chunkDelayMs?: number;
  /** Characters per streamed chunk. */
  chunkSize?: number;
  /** Destroy the connection after this many streamed chunks. */
  cutAfterChunks?: number;
  /** Send nothing more after this many streamed chunks, keeping the connection open. */
  stallAfterChunks?: number;
  /** Send this raw body (e.g. malformed JSON) with status 200. */
  rawBody?: string;
}

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
  /** Its place among the server's events, counted from 1: which of two requests came first. */
  arrived: number;
  /** A streamed answer's place among those events when its first text was sent. */
  firstTextSent?: number;
}

export interface FakeModelServer {
  /** Base URL including /v1, as providers expect. */
  baseUrl: string;
  /** Every request but the follow-up ones. */
  requests: RecordedRequest[];
  enqueue(...scenarios: Scenario[]): void;
  /** Requests for follow-up questions. */
  followUpRequests: RecordedRequest[];
  /** Scenarios for follow-up requests; without one, a question on each passage's title. */
  enqueueFollowUps(...scenarios: Scenario[]): void;
  /** Drops scenarios a test queued but did not use. */
  clearQueue(): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of every message of a chat request. */
function promptOf(body: Record<string, unknown>): string {
  const messages = (body.messages as { content: unknown }[] | undefined) ?? [];
  return messages
    .map((message) =>
      typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    )
    .join("\n");
}

/** First sentence of passage 1 with a [1] marker, or a refusal when there are no passages. */
export function defaultAnswer(body: Record<string, unknown>): string {
  const prompt = promptOf(body);
  const passage = /<passage number="1"[^>]*>\n([\s\S]*?)\n<\/passage>/.exec(prompt)?.[1];
  if (!passage) return "The book does not cover this.";
  const sentence = passage
    .replace(/```[\s\S]*?```/g, " ")
    .split(/(?<=[.!?])\s+/)
    .find((candidate) => candidate.trim().length > 20);
  return `According to the book, ${sentence?.trim() ?? passage.slice(0, 120)} [1]`;
}

/** One question per passage title of the prompt, as a model asked for follow-ups would write. */
export function defaultFollowUps(body: Record<string, unknown>): string {
  const titles = Array.from(
    promptOf(body).matchAll(/<passage number="\d+" title="([^"]*)">/g),
    (match) => (match[1] ?? "").split(" › ").at(-1),
  );
  return titles
    .slice(0, 3)
    .map((title) => `How is ${title} used in practice?`)
    .join("\n");
}

function isFollowUpRequest(body: Record<string, unknown>): boolean {
  const messages = (body.messages as { role?: unknown; content?: unknown }[] | undefined) ?? [];
  return messages.some(
    // The prompt as sent ends with its canary.
    (message) =>
      message.role === "system" &&
      typeof message.content === "string" &&
      message.content.startsWith(FOLLOW_UP_SYSTEM_PROMPT),
  );
}

/** A deterministic bag-of-words embedding: texts sharing words point the same way. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (word.length < 3) continue;
    let hash = 2166136261;
    for (const character of word) hash = Math.imul(hash ^ character.charCodeAt(0), 16777619);
    vector[Math.abs(hash) % dimensions] = (vector[Math.abs(hash) % dimensions] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startFakeModelServer(
  options: { embeddingDimensions?: number } = {},
): Promise<FakeModelServer> {
  const queue: Scenario[] = [];
  const requests: RecordedRequest[] = [];
  const followUpQueue: Scenario[] = [];
  const followUpRequests: RecordedRequest[] = [];
  const dimensions = options.embeddingDimensions ?? 64;
  const sockets = new Set<import("node:net").Socket>();
  let events = 0;

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const arrived = ++events;
    const body = await readBody(request);
    const path = request.url ?? "";
    const followUp = isFollowUpRequest(body);
    const recorded: RecordedRequest = { path, body, arrived };
    (followUp ? followUpRequests : requests).push(recorded);
    if (path.endsWith("/embeddings")) {
      const scenario = queue.shift() ?? {};
      if (scenario.status) return sendError(response, scenario);
      const inputs = Array.isArray(body.input)
        ? (body.input as string[])
        : [String(body.input ?? "")];
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          object: "list",
          data: inputs.map((input, index) => ({
            object: "embedding",
            index,
            embedding: fakeEmbedding(input, dimensions),
          })),
          model: body.model,
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
      return;
    }
    if (!path.endsWith("/chat/completions")) {
      response.writeHead(404).end();
      return;
    }
    const scenario = (followUp ? followUpQueue : queue).shift() ?? {};
    if (scenario.status) return sendError(response, scenario);
    if (scenario.firstTokenDelayMs) await sleep(scenario.firstTokenDelayMs);
    if (response.destroyed) return;
    if (scenario.rawBody !== undefined) {
      response.writeHead(200, {
        "content-type": body.stream ? "text/event-stream" : "application/json",
      });
      response.end(scenario.rawBody);
      return;
    }
    const text =
      scenario.text ??
      scenario.reply?.(promptOf(body)) ??
      (followUp ? defaultFollowUps(body) : defaultAnswer(body));
    const base = {
      id: "chatcmpl-local",
      created: 1_700_000_000,
      model: String(body.model ?? "local"),
    };
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          ...base,
          object: "chat.completion",
          choices: [
            { index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const size = scenario.chunkSize ?? 8;
    const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
    const write = (payload: unknown) => response.write(`data: ${JSON.stringify(payload)}\n\n`);
    write({
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
    });
    for (const [index, piece] of pieces.entries()) {
      if (scenario.cutAfterChunks !== undefined && index >= scenario.cutAfterChunks) {
        // Let the chunks already written reach the client, then drop the connection.
        await sleep(50);
        response.destroy();
        return;
      }
      if (scenario.stallAfterChunks !== undefined && index >= scenario.stallAfterChunks) {
        // Hold the connection until the client gives up on it.
        await new Promise((resolve) => response.once("close", resolve));
        return;
      }
      if (scenario.chunkDelayMs) await sleep(scenario.chunkDelayMs);
      if (response.destroyed) return;
      recorded.firstTextSent ??= ++events;
      write({
        ...base,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: piece }, finish_reason: null }],
      });
    }
    write({
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 10,
        completion_tokens: pieces.length,
        total_tokens: 10 + pieces.length,
      },
    });
    response.end("data: [DONE]\n\n");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...scenarios) => queue.push(...scenarios),
    followUpRequests,
    enqueueFollowUps: (...scenarios) => followUpQueue.push(...scenarios),
    clearQueue: () => {
      queue.length = 0;
      followUpQueue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function sendError(response: ServerResponse, scenario: Scenario): void {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (scenario.retryAfter !== undefined) headers["retry-after"] = scenario.retryAfter;
  response.writeHead(scenario.status ?? 500, headers);
  response.end(
    JSON.stringify({
      error: { message: `injected ${scenario.status}`, type: "server_error", code: null },
    }),
  );
}
