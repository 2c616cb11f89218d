import { createServer, type Socket, connect as tcpConnect } from "node:net";
import { describe, expect, it } from "vitest";
import { requirePostgres, TEST_DATABASE_URL } from "../../test/postgres.ts";
import { classifyError } from "../pipeline/error-classification.ts";
import { openPostgres } from "./postgres.ts";

const postgresReady = await requirePostgres();

/** A TCP relay to the test PostgreSQL whose connections can be reset (RST) at will. */
async function resettableRelay() {
  const target = new URL(TEST_DATABASE_URL);
  const accepted = new Set<Socket>();
  const relay = createServer((socket) => {
    const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
    accepted.add(socket);
    for (const side of [socket, upstream]) side.on("error", () => {});
    socket.pipe(upstream).pipe(socket);
    socket.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const { port } = relay.address() as { port: number };
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    reset: () => {
      for (const socket of accepted) socket.resetAndDestroy();
    },
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

describe.runIf(postgresReady)("a PostgreSQL connection reset", () => {
  it("is DATABASE_UNAVAILABLE (503, retry), told apart from a reader's reset by where it came from", async () => {
    const relay = await resettableRelay();
    const db = await openPostgres(relay.url, 1);
    try {
      const running = db.query("SELECT pg_sleep(5)");
      relay.reset();
      const error = await running.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ code: "DATABASE_UNAVAILABLE" });
      expect((error as Error).cause).toMatchObject({ code: "ECONNRESET" });
      expect(classifyError(error)).toMatchObject({ errorType: "database", status: 503 });
    } finally {
      await db.close().catch(() => {});
      await relay.close();
    }
  });
});
