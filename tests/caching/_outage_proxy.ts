// A loopback TCP relay in front of any Redis address, to cut ONE instance off
// while the others keep talking to the store (a network partition): `cut()`
// resets its connections and refuses new ones until `heal()`.
import { createConnection, createServer, type Socket } from "node:net";

/** A relay started by {@linkcode startOutageProxy}. */
export interface OutageProxy {
  readonly host: string;
  readonly port: number;
  /** Resets every relayed connection and refuses new ones. */
  cut(): void;
  /** Relays again. */
  heal(): void;
  /** Stops relaying and closes the listener. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Relays 127.0.0.1:<free port> to `target`. */
export async function startOutageProxy(
  target: { host: string; port: number },
): Promise<OutageProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null
    ? address.port
    : 0;
  const proxy: OutageProxy = {
    host: "127.0.0.1",
    port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    heal() {
      cut = false;
    },
    async close() {
      cut = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  return proxy;
}
