import { randomUUID } from "node:crypto";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Config } from "../../config/config.ts";
import { createHistoryStore } from "../../http/compose.ts";
import { askThroughChat, mcpBookContent } from "../../mcp/book.ts";
import { createMcpServer } from "../../mcp/server.ts";
import { createChatPipeline } from "../../pipeline/answering.ts";
import { createChatService } from "../../pipeline/chat-service.ts";
import { createSafeLogger } from "../../util/safe-log.ts";
import { VERSION } from "../../version.ts";
import { requireDataDir, requireIndex, withLectern } from "../open-book.ts";

/**
 * `lectern mcp`: the book's MCP server on stdin/stdout, for an agent that starts it as a local
 * process (`{"command": "npx", "args": ["lectern", "mcp", "--data-dir", "…"]}`). Stdout carries the
 * protocol only: logs go to stderr. Ends when the client closes stdin.
 */
export async function mcpCommand(config: Config): Promise<number> {
  requireDataDir(config);
  return withLectern(
    config,
    async (lectern) => {
      requireIndex(lectern);
      const logger = createSafeLogger(config.logLevel === "info" ? "warn" : config.logLevel);
      const { pipeline } = createChatPipeline(lectern, logger);
      const chat = createChatService({
        pipeline,
        history: createHistoryStore(config, lectern),
        config,
        logger,
      });
      const server = createMcpServer(
        {
          ...mcpBookContent(lectern),
          maxQueryChars: config.limits.maxQueryChars,
          ask: (question, sessionId, version, locale) =>
            askThroughChat(chat, question, {
              requestId: randomUUID(),
              sessionId: sessionId ?? randomUUID(),
              version,
              locale,
            }),
        },
        VERSION,
      );
      const transport = new StdioServerTransport();
      await server.connect(transport);
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
        process.stdin.once("end", () => resolve());
      });
      await closed;
      await server.close();
      return 0;
    },
    { workload: "session" },
  );
}
