// Deno flavour of the host's HTTP server: Deno.serve. (scripts/build_npm.ts
// ships _server_node.ts in its place: node:http, or Bun.serve on Bun.)
//
// Deno.serve has no header-read or keep-alive timeout: here headersTimeout
// and idleTimeout are not enforced (docs/platform.md says what to do).
//
// A request body answered 413 is not read on: see dropBody. A response body
// sent as a stream is watched by app.handle (DENO_BODY), and Deno's own
// error handler, which prints an error raw on standard error, is Kit's.
//
// server.shutdown() cuts the body of a request that is still arriving, and
// Deno.serve cannot stop accepting on its own. So closing comes in two
// steps: first new requests are answered 503 with `Connection: close` until
// the handlers in flight have answered (and so read their bodies); then
// shutdown() refuses new connections, writes what the answers still stream
// and closes idle keep-alive connections.

import {
  type Listener,
  listenError,
  type ListenOptions,
  reportServerError,
  type RuntimeHandler,
  until,
  urlOf,
} from "./_server_common.ts";
import {
  HOST_HOOKS,
  type HostArgument,
  type HostHooks,
  type ResponseBodyWatch,
} from "./_request_handler.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";

export type { Listener, ListenOptions, RuntimeHandler };

/** Starts Deno.serve; resolves once it listens. */
export function listen(
  handler: RuntimeHandler,
  options: ListenOptions,
): Promise<Listener> {
  const { port, hostname } = options;
  const force = new AbortController();
  let inFlight = 0;
  let closing = false;
  let idle: (() => void) | undefined;
  const done = (): void => {
    if (--inFlight === 0) idle?.();
  };
  const gated = (
    request: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ): Response | Promise<Response> => {
    if (closing) return stopping();
    inFlight++;
    (info as HostArgument)[HOST_HOOKS] = DENO_HOOKS;
    let answer: Response | Promise<Response>;
    try {
      answer = handler(request, info);
    } catch (error) {
      done();
      throw error;
    }
    if (answer instanceof Promise) answer.then(done, done);
    else done();
    return answer;
  };
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      port,
      hostname,
      signal: force.signal,
      // The host logs its own line.
      onListen: () => {},
      // Deno's own handler prints an error raw on standard error: a body
      // app.handle reported comes here as ABORTED, anything else is
      // reported masked.
      onError: (error: unknown): Response => {
        if (error !== ABORTED) {
          reportServerError(
            `Deno.serve reported: ${
              error instanceof Error ? error.message : String(error)
            }`,
            error,
          );
        }
        return new Response("Internal Server Error", { status: 500 });
      },
    }, gated);
  } catch (error) {
    return Promise.reject(listenError(hostname, port, error));
  }
  return Promise.resolve({
    url: urlOf(server.addr.hostname, server.addr.port),
    kind: "Deno.serve",
    close: async (signal: AbortSignal): Promise<boolean> => {
      closing = true;
      const answered = inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => idle = resolve);
      const inTime = await until(answered, signal) &&
        await until(server.shutdown(), signal);
      if (!inTime) force.abort();
      return inTime;
    },
  });
}

// Where Deno's Response keeps its inner response, whose `body` tells how it
// was made: none or a static one (a string, bytes) until read, else a
// stream. (An internal of Deno's since 1.x; without it every body is
// watched.)
const INNER: symbol | undefined = Object.getOwnPropertySymbols(
  new Response(""),
).find((symbol) => symbol.description === "response");

// What a watched body that failed is errored with: Deno.serve hands it to
// onError, which knows it was reported already.
const ABORTED: unique symbol = Symbol("kit.responseBodyAborted");

// Response bodies on Deno: only one sent as a stream may fail while it is
// sent; a failed one is errored with ABORTED, which cuts the connection.
const DENO_BODY: ResponseBodyWatch = {
  stream(response: Response): ReadableStream<Uint8Array> | null {
    const inner = INNER === undefined
      ? undefined
      : (response as unknown as Record<symbol, unknown>)[INNER];
    if (inner !== null && typeof inner === "object" && "body" in inner) {
      const body = (inner as { body: { streamOrStatic?: unknown } | null })
        .body;
      if (body === null || !(body.streamOrStatic instanceof ReadableStream)) {
        return null;
      }
    }
    return response.body;
  },
  abort(_argument, controller): void {
    controller.error(ABORTED);
  },
};

// What Deno.serve tells app.handle: how response bodies are watched.
const DENO_HOOKS: HostHooks = { body: DENO_BODY };

// The answer to a request that arrives once the server is closing.
function stopping(): Response {
  return new Response(
    JSON.stringify({ message: "The service is stopping" }),
    {
      status: 503,
      headers: {
        "Content-Type": "application/json",
        "Connection": "close",
        "Retry-After": "1",
      },
    },
  );
}

/**
 * Lets go of the rest of a request body answered 413 (`Connection: close`).
 * Deno.serve reads a body the handler left unread to its end, discarding it,
 * before it closes the connection, however large (4 GB in seconds), and a
 * body cancelled before the answer is written is read the same way. A body
 * still being read once the answer is written keeps the connection instead,
 * and cancelling it then closes the connection. So a read is left pending,
 * and the body is cancelled a turn after the answer was handed over
 * (`info.completed`), by when Deno has written it.
 */
export function dropBody(
  body: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>,
  args: readonly unknown[],
): void {
  const reader = body instanceof ReadableStream ? body.getReader() : body;
  const cancel = (): void => {
    reader.cancel().catch(() => {});
  };
  const completed = (args[0] as { completed?: unknown } | null | undefined)
    ?.completed;
  if (!(completed instanceof Promise)) {
    // Not Deno.serve's request (the test kit's in-memory fetch).
    cancel();
    return;
  }
  reader.read().catch(() => {});
  const later = (): void => {
    unrefTimer(setTimeout(cancel, 0));
  };
  completed.then(later, later);
}
