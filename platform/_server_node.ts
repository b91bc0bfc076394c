// Node.js and Bun flavour of the host's HTTP server (scripts/build_npm.ts
// ships it in place of _server_deno.ts). On Bun: Bun.serve. On Node.js:
// node:http itself, with a small Fetch adapter, rather than
// @hono/node-server, so serving adds no dependency to install.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { unrefTimer } from "../core/mod.ts";
import {
  type Listener,
  listenError,
  type ListenOptions,
  type RuntimeHandler,
  until,
  urlOf,
} from "./_server_common.ts";

export type { Listener, ListenOptions, RuntimeHandler };

interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}

interface BunLike {
  serve(options: {
    port: number;
    hostname: string;
    idleTimeout: number;
    fetch: (request: Request, server: unknown) => Promise<Response>;
  }): BunServer;
}

// Bun's idleTimeout is in whole seconds, at most 255.
const BUN_MAX_IDLE_SECONDS = 255;
// How often at most Node.js looks for connections past headersTimeout.
const MAX_CHECK_INTERVAL = 30_000;
// While closing, idle keep-alive connections are closed this often: a
// connection turns idle only once its last response is written.
const SWEEP_INTERVAL = 50;

/** Starts the server of the runtime at hand; resolves once it listens. */
export function listen(
  handler: RuntimeHandler,
  options: ListenOptions,
): Promise<Listener> {
  const bun = (globalThis as { Bun?: BunLike }).Bun;
  return bun !== undefined
    ? listenBun(bun, handler, options)
    : listenNode(handler, options);
}

function listenBun(
  bun: BunLike,
  handler: RuntimeHandler,
  { port, hostname, headersTimeout, idleTimeout }: ListenOptions,
): Promise<Listener> {
  // One inactivity timeout covers a connection that sends nothing, or stops
  // sending its headers, and an idle keep-alive one; it also ends a request
  // that sends and receives nothing for that long, so it takes the larger.
  const seconds = Math.min(
    BUN_MAX_IDLE_SECONDS,
    Math.max(1, Math.ceil(Math.max(headersTimeout, idleTimeout) / 1000)),
  );
  let server: BunServer;
  try {
    server = bun.serve({
      port,
      hostname,
      idleTimeout: seconds,
      fetch: (request, bunServer) => handler(request, bunServer),
    });
  } catch (error) {
    return Promise.reject(listenError(hostname, port, error));
  }
  return Promise.resolve({
    url: urlOf(server.hostname, server.port),
    kind: "Bun.serve",
    close: async (signal: AbortSignal): Promise<boolean> => {
      const inTime = await until(Promise.resolve(server.stop(false)), signal);
      if (!inTime) await server.stop(true);
      return inTime;
    },
  });
}

function listenNode(
  handler: RuntimeHandler,
  { port, hostname, headersTimeout, idleTimeout }: ListenOptions,
): Promise<Listener> {
  const server: Server = createServer({
    headersTimeout,
    // Node.js refuses a request timeout shorter than the headers' one.
    requestTimeout: Math.max(300_000, headersTimeout),
    keepAliveTimeout: idleTimeout,
    connectionsCheckingInterval: Math.min(
      MAX_CHECK_INTERVAL,
      Math.max(100, Math.floor(headersTimeout / 4)),
    ),
  }, (incoming, outgoing) => {
    void serveNode(handler, incoming, outgoing, hostname, port);
  });
  return new Promise<Listener>((resolve, reject) => {
    const onError = (error: unknown): void =>
      reject(listenError(hostname, port, error));
    server.once("error", onError);
    server.listen(port, hostname, () => {
      server.off("error", onError);
      const address = server.address() as { address: string; port: number };
      resolve({
        url: urlOf(address.address, address.port),
        kind: "node:http",
        close: (signal) => closeNode(server, signal),
      });
    });
  });
}

async function closeNode(
  server: Server,
  signal: AbortSignal,
): Promise<boolean> {
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeIdleConnections();
  const sweep = unrefTimer(
    setInterval(() => server.closeIdleConnections(), SWEEP_INTERVAL),
  );
  try {
    const inTime = await until(closed, signal);
    if (!inTime) server.closeAllConnections();
    return inTime;
  } finally {
    clearInterval(sweep);
  }
}

const NO_BODY = new Set(["GET", "HEAD"]);

async function serveNode(
  handler: RuntimeHandler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  hostname: string,
  port: number,
): Promise<void> {
  const aborted = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) aborted.abort();
  });
  let request: Request;
  try {
    const headers = new Headers();
    const raw = incoming.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
    const method = incoming.method ?? "GET";
    const host = incoming.headers.host ?? `${hostname}:${port}`;
    const init: RequestInit & { duplex?: "half" } = {
      method,
      headers,
      signal: aborted.signal,
    };
    if (!NO_BODY.has(method)) {
      init.body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
      init.duplex = "half";
    }
    request = new Request(`http://${host}${incoming.url ?? "/"}`, init);
  } catch {
    // A Host header or target that makes no URL.
    outgoing.writeHead(400, { "Content-Type": "application/json" });
    outgoing.end('{"message":"Bad Request"}');
    return;
  }
  try {
    await write(await handler(request), outgoing);
  } catch {
    outgoing.destroy();
  }
}

// Node.js's Response keeps a body made from a string or bytes under an
// internal symbol; writing that directly spares the stream a body read
// costs. Where it is absent (another Node.js) every body streams.
const STATE: symbol | undefined = Reflect.ownKeys(new Response()).find((
  key,
): key is symbol => typeof key === "symbol" && key.description === "state");

function sourceOf(response: Response): string | Uint8Array | undefined {
  if (STATE === undefined) return undefined;
  const state = (response as unknown as Record<symbol, unknown>)[STATE] as
    | { body?: { source?: unknown; stream?: { locked?: boolean } } | null }
    | undefined;
  const body = state?.body;
  // A body already read (or being read) by someone else streams as usual.
  if (body == null || body.stream?.locked === true || response.bodyUsed) {
    return undefined;
  }
  const source = body.source;
  return typeof source === "string" || source instanceof Uint8Array
    ? source
    : undefined;
}

async function write(
  response: Response,
  outgoing: ServerResponse,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const source = sourceOf(response);
  if (source !== undefined) {
    headers["content-length"] = String(
      typeof source === "string"
        ? Buffer.byteLength(source)
        : source.byteLength,
    );
    outgoing.writeHead(response.status, response.statusText, headers);
    outgoing.end(source);
    return;
  }
  outgoing.writeHead(response.status, response.statusText, headers);
  if (response.body === null) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  const gone = (): void => void reader.cancel().catch(() => {});
  outgoing.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (outgoing.destroyed) return;
      if (!outgoing.write(value)) {
        await new Promise<void>((resolve) => {
          const go = (): void => {
            outgoing.off("drain", go);
            outgoing.off("close", go);
            resolve();
          };
          outgoing.on("drain", go);
          outgoing.on("close", go);
        });
      }
    }
    outgoing.end();
  } finally {
    outgoing.off("close", gone);
  }
}
