import { createServer, type Server, type Socket } from "node:net";

/**
 * A Redis that hangs the way a stopped one does (SIGSTOP, a frozen VM, a network partition that
 * drops packets): connections are accepted and the client's handshake is answered, so the client
 * believes Redis is ready, and after that nothing is ever answered. Commands it received are
 * counted, so a test can tell that its requests reached Redis rather than being skipped up front.
 */
export interface HungRedis {
  url: string;
  /** Commands received after the handshake, which were never answered. */
  readonly unanswered: number;
  close(): Promise<void>;
}

/** The handshake a client sends on connecting: CLIENT SETINFO / SETNAME, and INFO (ready check). */
const INFO_REPLY = "# Server\r\nredis_version:7.2.0\r\n# Persistence\r\nloading:0\r\n";

export async function startHungRedis(): Promise<HungRedis> {
  const sockets = new Set<Socket>();
  let unanswered = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (;;) {
        const parsed = readCommand(buffered);
        if (!parsed) break;
        buffered = buffered.slice(parsed.length);
        if (parsed.name === "info") {
          socket.write(`$${Buffer.byteLength(INFO_REPLY)}\r\n${INFO_REPLY}\r\n`);
        } else if (parsed.name === "client") {
          socket.write("+OK\r\n");
        } else {
          unanswered++;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    get unanswered() {
      return unanswered;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One RESP array of bulk strings (how clients send commands): its name and length in text. */
function readCommand(text: string): { name: string; length: number } | undefined {
  const header = /^\*(\d+)\r\n/.exec(text);
  if (!header) return undefined;
  let offset = header[0].length;
  let name = "";
  for (let index = 0; index < Number(header[1]); index++) {
    const bulk = /^\$(\d+)\r\n/.exec(text.slice(offset));
    if (!bulk) return undefined;
    const start = offset + bulk[0].length;
    const end = start + Number(bulk[1]);
    if (text.length < end + 2) return undefined;
    if (index === 0) name = text.slice(start, end).toLowerCase();
    offset = end + 2;
  }
  return { name, length: offset };
}
