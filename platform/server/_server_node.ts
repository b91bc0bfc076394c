// Node.js and Bun flavour of the host's HTTP server (scripts/build_npm.ts
// ships it in place of _server_deno.ts). On Bun: Bun.serve. On Node.js: a
// node:http server of Kit's own (its timeouts, closing it connection by
// connection for the drain) with @hono/node-server's request listener,
// which turns each request into a Request and writes the Response back;
// it is loaded with the first `serve`.
import type * as NodeHttp from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { loadGetRequestListener } from "./_hono_node_server_node.ts";
import {
  HOST_HOOKS,
  type HostArgument,
  type HostHooks,
  type ResponseBodyWatch,
} from "./_request_handler.ts";
import {
  dropBody,
  type Listener,
  listenError,
  type ListenOptions,
  reportServerError,
  type RuntimeHandler,
  until,
  urlOf,
} from "./_server_common.ts";

export { dropBody };
export type { Listener, ListenOptions, RuntimeHandler };

// node:http (with node:net and the stream modules) is reached on the first
// `serve`, through the global `process`, not by a static import: an
// application that only imports the package, or serves on Bun, does not
// load it.
function nodeHttp(): typeof NodeHttp {
  return (globalThis as unknown as {
    process: { getBuiltinModule(id: "node:http"): typeof NodeHttp };
  }).process.getBuiltinModule("node:http");
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
    idleTimeout: number;
    fetch: (
      request: Request,
      server: unknown,
    ) => Response | Promise<Response>;
  }): BunServer;
}

// Bun's idleTimeout is in whole seconds, at most 255.
const BUN_MAX_IDLE_SECONDS = 255;
// How often at most Node.js looks for connections past headersTimeout.
const MAX_CHECK_INTERVAL = 30_000;
// While closing, idle keep-alive connections are closed this often: a
// connection turns idle only once its last response is written.
const SWEEP_INTERVAL = 50;
// A connection that has not sent a byte is closed at the drain once it is
// this old, so that a request already on its way is not cut.
const SILENT_GRACE = 50;
// @hono/node-server replaces the global Request and Response, once, with
// subclasses of its own that build the standard objects only when a
// handler needs more than the method, URL, headers or a plain body. Without
// that a bare @hono/node-server app itself serves a fraction of the
// requests (BENCHMARKS.md), so Kit could not keep up with one; it happens
// only when an application serves on Node.js (docs/platform.md says so).
const OVERRIDE_GLOBALS = true;

type RequestListener = (
  incoming: IncomingMessage,
  outgoing: ServerResponse,
) => Promise<void>;

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
  let requestListener: RequestListener;
  try {
    // @hono/node-server turns each request into a Request and writes the
    // Response back; the server and its connections stay Kit's own, for the
    // timeouts and the drain.
    requestListener = loadGetRequestListener()(
      (request, env) => {
        (env as HostArgument)[HOST_HOOKS] = NODE_HOOKS;
        // A Response answered at once is handed over as it is:
        // @hono/node-server writes it in the same turn, and waits a turn
        // for a promise.
        return handler(request, env);
      },
      { overrideGlobalObjects: OVERRIDE_GLOBALS },
    );
    cacheKey ??= Object.getOwnPropertySymbols(new Response("")).find(
      (symbol) => symbol.description === "cache",
    ) ?? null;
  } catch (error) {
    return Promise.reject(error);
  }
  const server: Server = nodeHttp().createServer({
    headersTimeout,
    // Node.js refuses a request timeout shorter than the headers' one.
    requestTimeout: Math.max(300_000, headersTimeout),
    keepAliveTimeout: idleTimeout,
    connectionsCheckingInterval: Math.min(
      MAX_CHECK_INTERVAL,
      Math.max(100, Math.floor(headersTimeout / 4)),
    ),
  }, requestListener);
  // Node.js's closeIdleConnections() leaves alone a connection that has not
  // sent a request yet (it waits for its headers), and server.close() waits
  // for it: Node.js's own fetch opens such a spare connection when a request
  // of it is aborted, and keeps it for seconds. The drain closes those.
  const connections = new Map<Socket, number>();
  server.on("connection", (socket: Socket) => {
    connections.set(socket, performance.now());
    socket.once("close", () => connections.delete(socket));
  });
  return new Promise<Listener>((resolve, reject) => {
    const onError = (error: unknown): void =>
      reject(listenError(hostname, port, error));
    server.once("error", onError);
    server.listen(port, hostname, () => {
      server.off("error", onError);
      // An error after listening (accept() failing with EMFILE…) would end
      // the process without a listener: report it and keep serving.
      server.on("error", (error: unknown) => {
        reportServerError(
          `The HTTP server on ${hostname}:${port} reported: ${
            error instanceof Error ? error.message : String(error)
          }`,
          error,
        );
      });
      const address = server.address() as { address: string; port: number };
      resolve({
        url: urlOf(address.address, address.port),
        kind: "node:http",
        close: (signal) => closeNode(server, connections, signal),
      });
    });
  });
}

// Closes the idle keep-alive connections and those that never sent a byte.
function closeIdle(server: Server, connections: Map<Socket, number>): void {
  server.closeIdleConnections();
  const now = performance.now();
  for (const [socket, opened] of connections) {
    if (
      socket.bytesRead === 0 && now - opened >= SILENT_GRACE &&
      (socket as { _httpMessage?: unknown })._httpMessage == null
    ) {
      socket.destroy();
    }
  }
}

// X-Request-ID as the client sent it (several joined as Headers would join
// them), read from the raw header lines: building the request's Headers
// for it would cost more than the rest of app.handle.
function requestIdHeader(raw: string[]): string | null {
  let found: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 12 && name.toLowerCase() === "x-request-id") {
      found = found === null ? raw[i + 1] : `${found}, ${raw[i + 1]}`;
    }
  }
  return found;
}

// The key under which @hono/node-server's light Response keeps the status,
// body and headers it was made with (null: this version has none).
let cacheKey: symbol | null | undefined;

// Response bodies on Node.js: a light Response tells what it was made with
// (a string, bytes or a Blob is written whole; only a stream may fail while
// it is sent); another has its standard body. A body that failed is ended
// by cutting the connection: erroring the stream would make
// @hono/node-server print the error with its stack on standard error.
const NODE_BODY: ResponseBodyWatch = {
  stream(response: Response): ReadableStream<Uint8Array> | null {
    if (cacheKey !== null && cacheKey !== undefined) {
      const cache = (response as unknown as Record<symbol, unknown>)[cacheKey];
      if (Array.isArray(cache)) {
        const body: unknown = cache[1];
        return body !== null && typeof body === "object" &&
            typeof (body as ReadableStream).getReader === "function"
          ? body as ReadableStream<Uint8Array>
          : null;
      }
    }
    return response.body;
  },
  abort(argument, controller): void {
    (argument as { outgoing?: ServerResponse }).outgoing?.destroy();
    controller.close();
  },
};

// app.handle's X-Request-ID, when the Response is @hono/node-server's light
// one and does not set the header itself, without making its headers a
// Headers object: added to a copy of its plain headers object (which may be
// the handler's own, shared by other responses), which @hono/node-server
// hands to writeHead() as it is; else set on the ServerResponse, whose
// writeHead() then merges the two (more work). Otherwise (`false`)
// app.handle sets it on the Response.
function writeRequestId(
  response: Response,
  requestId: string,
  argument: unknown,
): boolean {
  if (cacheKey === null || cacheKey === undefined) return false;
  const cache = (response as unknown as Record<symbol, unknown>)[cacheKey];
  if (!Array.isArray(cache)) return false;
  const headers: unknown = cache[2];
  let copy: Record<string, unknown> | undefined;
  if (headers instanceof Headers) {
    if (headers.has("x-request-id")) return false;
  } else if (headers !== undefined && headers !== null) {
    if (Array.isArray(headers) || typeof headers !== "object") return false;
    // Copied key by key: Node.js 20 makes `{ ...headers, name: value }`
    // many times slower.
    copy = {};
    for (const name in headers) {
      if (name.length === 12 && name.toLowerCase() === "x-request-id") {
        return false;
      }
      copy[name] = (headers as Record<string, unknown>)[name];
    }
  }
  const outgoing = (argument as { outgoing?: ServerResponse }).outgoing;
  if (outgoing === undefined || outgoing.headersSent) return false;
  if (copy !== undefined) {
    copy["X-Request-ID"] = requestId;
    cache[2] = copy;
  } else {
    outgoing.setHeader("X-Request-ID", requestId);
  }
  return true;
}

// What Kit's server on Node.js tells app.handle: X-Request-ID read from the
// connection and written on it, response bodies watched. `argument` is
// @hono/node-server's env ({ incoming, outgoing }).
const NODE_HOOKS: HostHooks = {
  requestId: (argument) =>
    requestIdHeader(
      (argument as { incoming: IncomingMessage }).incoming.rawHeaders,
    ),
  header: writeRequestId,
  body: NODE_BODY,
};

async function closeNode(
  server: Server,
  connections: Map<Socket, number>,
  signal: AbortSignal,
): Promise<boolean> {
  const closed = new Promise<void>((done) => server.close(() => done()));
  closeIdle(server, connections);
  const sweep = unrefTimer(
    setInterval(() => closeIdle(server, connections), SWEEP_INTERVAL),
  );
  try {
    const inTime = await until(closed, signal);
    if (!inTime) server.closeAllConnections();
    return inTime;
  } finally {
    clearInterval(sweep);
  }
}
