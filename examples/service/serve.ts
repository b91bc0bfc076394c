// The HTTP server for the runtime at hand: Deno.serve on Deno, Bun.serve on
// Bun, @hono/node-server on Node.js. Each closes gracefully: new requests
// get a 503 with `Connection: close`, the requests in flight finish, then
// the server closes. (Deno's server.shutdown() alone cuts the body of a
// request still arriving, so the drain comes first on every runtime.)

/** A Fetch-style request handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A listening server. */
export interface RunningServer {
  /** `http://<host>:<port>` as bound (the real port when 0 was asked). */
  readonly url: string;
  /** Which server runs it: `Deno.serve`, `Bun.serve` or `node:http`. */
  readonly kind: string;
  /** Stops accepting, waits for the requests in flight, then resolves. */
  close(): Promise<void>;
}

interface DenoServer {
  addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}
interface DenoLike {
  serve(
    options: {
      port: number;
      hostname: string;
      onListen?: () => void;
    },
    handler: FetchHandler,
  ): DenoServer;
}
interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunLike {
  serve(options: {
    port: number;
    hostname: string;
    fetch: FetchHandler;
  }): BunServer;
}

function display(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" || hostname === "::"
    ? "localhost"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  return `http://${host}:${port}`;
}

/**
 * Starts serving `handler` on `hostname:port`.
 *
 * @param handler The request handler.
 * @param port The port (0 for any free one).
 * @param hostname The address to bind.
 * @returns The running server, once it listens.
 */
export async function listen(
  handler: FetchHandler,
  port: number,
  hostname: string,
): Promise<RunningServer> {
  const drain = new Drain(handler);
  const server = await open(drain.handler, port, hostname);
  return {
    url: server.url,
    kind: server.kind,
    close: async () => {
      await drain.finish();
      await server.close();
    },
  };
}

// Counts the requests in flight; once finish() is called, answers new ones
// with 503 and resolves when the last one in flight is answered.
class Drain {
  readonly handler: FetchHandler;
  #inFlight = 0;
  #draining = false;
  #idle: (() => void) | undefined;

  constructor(handler: FetchHandler) {
    this.handler = async (request: Request): Promise<Response> => {
      if (this.#draining) {
        return Response.json({ message: "The service is stopping" }, {
          status: 503,
          headers: { "Connection": "close", "Retry-After": "1" },
        });
      }
      this.#inFlight++;
      try {
        return await handler(request);
      } finally {
        if (--this.#inFlight === 0) this.#idle?.();
      }
    };
  }

  finish(): Promise<void> {
    this.#draining = true;
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle = resolve);
  }
}

async function open(
  handler: FetchHandler,
  port: number,
  hostname: string,
): Promise<RunningServer> {
  const runtime = globalThis as { Deno?: DenoLike; Bun?: BunLike };
  if (runtime.Bun !== undefined) {
    const server = runtime.Bun.serve({ port, hostname, fetch: handler });
    return {
      url: display(server.hostname, server.port),
      kind: "Bun.serve",
      close: async () => {
        await server.stop(false);
      },
    };
  }
  if (runtime.Deno !== undefined) {
    const server = runtime.Deno.serve({
      port,
      hostname,
      onListen: () => {},
    }, handler);
    return {
      url: display(server.addr.hostname, server.addr.port),
      kind: "Deno.serve",
      close: () => server.shutdown(),
    };
  }
  const { serve } = await import("@hono/node-server");
  return await new Promise<RunningServer>((resolve, reject) => {
    const server = serve({ fetch: handler, port, hostname }, (info) => {
      resolve({
        url: display(info.address, info.port),
        kind: "node:http",
        close: () =>
          new Promise<void>((done) => {
            // close() stops accepting and ends once every connection is
            // closed. A keep-alive connection turns idle only after its last
            // response is written, so idle ones are closed now and again
            // every 50 ms until then, instead of after the keep-alive
            // timeout (5 s).
            const idle = server as { closeIdleConnections?: () => void };
            const sweep = setInterval(() => idle.closeIdleConnections?.(), 50);
            (sweep as { unref?: () => void }).unref?.();
            server.close(() => {
              clearInterval(sweep);
              done();
            });
            idle.closeIdleConnections?.();
          }),
      });
    });
    server.once("error", reject);
  });
}
