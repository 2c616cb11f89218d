/**
 * The floor a `/chat` request is measured against (`npm run bench -- --only cpu`): a bare Hono
 * route on @hono/node-server that reads the request's JSON and answers with a fixed body of the
 * size Lectern's answers have (`BENCH_BODY_FILE`, one real `/chat` response). Prints
 * "answering at URL" as `lectern serve` does.
 */
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const body = JSON.parse(readFileSync(process.env.BENCH_BODY_FILE ?? "", "utf8")) as unknown;
const app = new Hono();
app.post("/chat", async (c) => {
  await c.req.json();
  return c.json(body);
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`answering at http://127.0.0.1:${info.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
