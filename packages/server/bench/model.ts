import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/config.ts";
import { percentile } from "../src/eval/evaluate.ts";
import { openLectern } from "../src/lectern.ts";
import { startFakeModelServer } from "../test/doubles/fake-model-server.ts";
import { answeringAt } from "./answering-at.ts";
import { createRandom, TextGenerator } from "./corpus.ts";

/**
 * Time to first token: Lectern's /chat/stream first `delta` against calling the same local model
 * server directly, side by side; and embedding throughput at ingest against that server.
 */

const require = createRequire(import.meta.url);
const tsxCli = require.resolve("tsx/cli");
const sourceConditions = "--conditions=lectern-source";
const cliEntry = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));

async function firstDataLine(response: Response, marker: string): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${marker}`);
    text += decoder.decode(value, { stream: true });
    if (text.includes(marker)) break;
  }
  await reader.cancel();
}

export async function benchTimeToFirstToken(dataDir: string, requests = 60) {
  const fake = await startFakeModelServer();
  const firstTokenDelayMs = 20;
  let child: ChildProcess | undefined;
  try {
    child = spawn(
      process.execPath,
      [tsxCli, sourceConditions, cliEntry, "serve", "--data-dir", dataDir, "--port", "0"],
      {
        env: {
          ...process.env,
          INIT_CWD: "",
          LOG_LEVEL: "warn",
          RATE_LIMIT_ENABLED: "false",
          HISTORY: "off",
          LLM_PROVIDER: "openai-compatible",
          LLM_BASE_URL: fake.baseUrl,
          LLM_MODEL: "local-model",
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const url = await answeringAt(child);
    const direct: number[] = [];
    const viaLectern: number[] = [];
    for (let round = 0; round < requests + 5; round++) {
      fake.enqueue({ firstTokenDelayMs, text: "Topics carry messages between nodes [1]." });
      let started = performance.now();
      await firstDataLine(
        await fetch(`${fake.baseUrl}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "local-model",
            stream: true,
            messages: [{ role: "user", content: "What is a topic?" }],
          }),
        }),
        '"content":"Topi',
      );
      const directMs = performance.now() - started;
      fake.enqueue({ firstTokenDelayMs, text: "Topics carry messages between nodes [1]." });
      started = performance.now();
      await firstDataLine(
        await fetch(`${url}/chat/stream`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "What is a topic in ROS 2?" }),
        }),
        "event: delta",
      );
      const lecternMs = performance.now() - started;
      if (round >= 5) {
        direct.push(directMs);
        viaLectern.push(lecternMs);
      }
    }
    direct.sort((a, b) => a - b);
    viaLectern.sort((a, b) => a - b);
    return {
      requests,
      modelFirstTokenDelayMs: firstTokenDelayMs,
      directP50Ms: percentile(direct, 0.5),
      directP95Ms: percentile(direct, 0.95),
      lecternP50Ms: percentile(viaLectern, 0.5),
      lecternP95Ms: percentile(viaLectern, 0.95),
      addedP50Ms: percentile(viaLectern, 0.5) - percentile(direct, 0.5),
    };
  } finally {
    child?.kill("SIGTERM");
    if (child) await new Promise((resolve) => child?.once("exit", resolve));
    await fake.close();
  }
}

export async function benchEmbeddingIngest(pages = 200) {
  const fake = await startFakeModelServer({ embeddingDimensions: 256 });
  const workDir = await mkdtemp(path.join(tmpdir(), "lectern-bench-embed-"));
  try {
    const docsDir = path.join(workDir, "docs");
    const generator = new TextGenerator(createRandom(7));
    for (let index = 0; index < pages; index++) {
      const page = generator.page(index);
      await mkdir(path.dirname(path.join(docsDir, page.path)), { recursive: true });
      await writeFile(path.join(docsDir, page.path), page.content);
    }
    const config = loadConfig({
      env: {
        EMBEDDINGS_PROVIDER: "openai-compatible",
        EMBEDDINGS_BASE_URL: fake.baseUrl,
        EMBEDDINGS_MODEL: "local-embed",
      },
      overrides: { dataDir: path.join(workDir, "data") },
    });
    const lectern = await openLectern(config);
    try {
      const report = await lectern.ingest(docsDir);
      const embedded = report.embeddings?.embedded ?? 0;
      const seconds = report.embeddings?.seconds ?? 0;
      return {
        pages,
        chunks: embedded,
        seconds,
        chunksPerSecond: embedded / seconds,
        batchSize: config.embeddings.batchSize,
        dimensions: 256,
      };
    } finally {
      await lectern.close();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
    await fake.close();
  }
}
