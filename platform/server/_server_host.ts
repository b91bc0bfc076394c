// The host's HTTP server: the health probes in front of the application's
// handler, the request body limit inside app.handle (so a 413 gets a
// request id and an access line), and the drain at shutdown: serve on for
// drainDelay while readiness says 503, then stop accepting, let the
// requests in flight finish and close idle connections.
import type { HealthReport } from "../host/health.ts";
import { type ServerSettings, UPLOAD_KEY } from "./_server_settings.ts";
import { dropBody, listen } from "#platform/server/server";
import type { Listener } from "./_server_common.ts";
import { until } from "./_server_common.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import type { HostHandler } from "./_request_handler.ts";
import { routeOfHandler, withRouteOf } from "./_route_of.ts";

/**
 * A handler as the runtime calls it: with one argument after the request
 * (Deno's info, @hono/node-server's env, Bun's server), or none in memory.
 */
type Handler = HostHandler;

/** What the server needs from the application. */
export interface ServerHost {
  /** app.handle: request id, context, access line, span. */
  handle(handler: Handler): Handler;
  /** The `/health` answer (app.healthHandler()). */
  health: (request: Request) => Promise<Response>;
  /** The report of the checks that count for readiness. */
  readiness(): Promise<HealthReport>;
}

const NO_STORE = {
  "Content-Type": "application/json",
  "Cache-Control": "no-store",
};

function json(body: unknown, status: number): Response {
  // The same Content-Type in every runtime (Bun's Response.json adds a
  // charset).
  return new Response(JSON.stringify(body), { status, headers: NO_STORE });
}

type Probe = "health" | "live" | "ready" | undefined;

// Which probe a GET or HEAD asks for, without parsing the URL (and with
// searches for one character, which cost less than for several).
function probeOf(request: Request): Probe {
  const method = request.method;
  if (method !== "GET" && method !== "HEAD") return undefined;
  const url = request.url;
  // The path starts at the first "/" after the scheme's "://".
  const colon = url.indexOf(":");
  const start = url.indexOf(
    "/",
    colon >= 0 && url.startsWith("//", colon + 1) ? colon + 3 : 0,
  );
  // "h": most paths are told apart by their second character.
  if (
    start < 0 || url.charCodeAt(start + 1) !== 104 ||
    !url.startsWith("/health", start)
  ) {
    return undefined;
  }
  let end = url.indexOf("?", start);
  if (end < 0) end = url.length;
  switch (url.slice(start + 7, end)) {
    case "":
      return "health";
    case "/live":
      return "live";
    case "/ready":
      return "ready";
    default:
      return undefined;
  }
}

function tooLarge(limit: number, key: string): Response {
  return new Response(
    JSON.stringify({
      message:
        `The request body is larger than the limit of ${limit} bytes (${key})`,
    }),
    {
      status: 413,
      // The rest of the body is not read: the connection ends here.
      headers: { "Content-Type": "application/json", "Connection": "close" },
    },
  );
}

class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`The request body is larger than the limit of ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

// The body, counted as it is read: past the limit the read fails, and the
// source is let go of (`exceeded` gets its reader) so nothing more is read.
function limitedBody(
  source: ReadableStream<Uint8Array>,
  limit: number,
  exceeded: (reader: ReadableStreamDefaultReader<Uint8Array>) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      total += value.byteLength;
      if (total > limit) {
        exceeded(reader);
        controller.error(new BodyTooLargeError(limit));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason): Promise<void> {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

// What an upload is: a form with files, or raw bytes.
const UPLOAD = /^\s*(multipart\/form-data|application\/octet-stream)\s*(;|$)/i;

/**
 * The application's handler behind the body limits: `uploadLimit` for a
 * request whose Content-Type is an upload (`multipart/form-data`,
 * `application/octet-stream`), `bodyLimit` for the others.
 */
export function limitBody(
  handler: (
    request: Request,
    ...args: unknown[]
  ) => Response | Promise<Response>,
  bodyLimit: number,
  uploadLimit: number = bodyLimit,
): Handler {
  const limited = async (
    request: Request,
    body: ReadableStream<Uint8Array>,
    args: unknown[],
  ): Promise<Response> => {
    const upload = uploadLimit !== bodyLimit &&
      UPLOAD.test(request.headers.get("content-type") ?? "");
    const limit = upload ? uploadLimit : bodyLimit;
    const key = upload ? UPLOAD_KEY : "server:maxBodySize";
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > limit) {
      dropBody(body, args);
      return tooLarge(limit, key);
    }
    let over = false;
    const counted = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: limitedBody(body, limit, (reader) => {
        over = true;
        dropBody(reader, args);
      }),
      duplex: "half",
    } as RequestInit);
    // The client's signal, read only when the handler reads it: Deno warns
    // on standard error, once, when a request whose signal was read is
    // answered (its legacy abort on success), which Kit must not cause by
    // itself. (A copy of the request, `new Request(counted)`, gets a signal
    // of its own.)
    Object.defineProperty(counted, "signal", {
      get: () => request.signal,
      configurable: true,
    });
    let response: Response | undefined;
    try {
      response = await handler(counted, ...args);
    } catch (error) {
      if (!over) throw error;
    }
    if (over) {
      // Whatever the handler made of the failed read, the answer is 413.
      await response?.body?.cancel().catch(() => {});
      return tooLarge(limit, key);
    }
    return response!;
  };
  // The handler gets what the runtime passed after the request (nothing in
  // memory); the route namer it carries (kit(hono)) passes to the wrapper.
  return withRouteOf((request: Request, argument?: unknown) => {
    // GET and HEAD carry no body: the common case adds no promise and no
    // body access.
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") {
      const body = request.body;
      if (body !== null) {
        return limited(
          request,
          body,
          argument === undefined ? [] : [argument],
        );
      }
    }
    return argument === undefined
      ? handler(request)
      : handler(request, argument);
  }, routeOfHandler(handler));
}

/** A server of the application: listening, or in memory only. */
export class HostServer {
  readonly #serve: Handler;
  readonly #listener: Listener | undefined;
  readonly #drainDelay: number;
  #closed = false;

  private constructor(
    serve: Handler,
    listener: Listener | undefined,
    drainDelay: number,
  ) {
    this.#serve = serve;
    this.#listener = listener;
    this.#drainDelay = drainDelay;
  }

  /**
   * Listens with `handler` behind the probes and the body limit; with
   * `listen` false it only makes that handler, for {@linkcode fetch}.
   *
   * @throws {Error} Naming the address when it cannot listen.
   */
  static async start(
    handler: (
      request: Request,
      ...args: unknown[]
    ) => Response | Promise<Response>,
    settings: ServerSettings,
    host: ServerHost,
    listenOn = true,
  ): Promise<HostServer> {
    const app = host.handle(
      limitBody(handler, settings.maxBodySize, settings.maxUploadSize),
    );
    let serve: Handler = app;
    if (settings.health) {
      const live = (): Response => json({ status: "alive" }, 200);
      const ready = async (): Promise<Response> => {
        const report = await host.readiness();
        const ok = report.status === "healthy" ||
          report.status === "degraded";
        return json(report, ok ? 200 : 503);
      };
      // Probes come every few seconds: they skip app.handle's access line.
      serve = (
        request: Request,
        argument?: unknown,
      ): Response | Promise<Response> => {
        switch (probeOf(request)) {
          case undefined:
            return app(request, argument);
          case "live":
            return live();
          case "ready":
            return ready();
          case "health":
            return host.health(request);
        }
      };
    }
    const listener = listenOn
      ? await listen(serve, {
        port: settings.port,
        hostname: settings.hostname,
        headersTimeout: settings.headersTimeout,
        idleTimeout: settings.idleTimeout,
      })
      : undefined;
    return new HostServer(serve, listener, settings.drainDelay);
  }

  /**
   * Answers a request with the handler the listener serves (probes, body
   * limit, request context), without a socket: the test kit's path. After
   * stop() it throws, as a closed port refuses.
   */
  fetch(request: Request): Promise<Response> {
    if (this.#closed) {
      return Promise.reject(
        new Error(
          `cannot send ${request.method} ${request.url}: the application has stopped`,
        ),
      );
    }
    try {
      return Promise.resolve(this.#serve(request));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `http://host:port` as bound; `undefined` in memory. */
  get url(): string | undefined {
    return this.#listener?.url;
  }

  /** `Deno.serve`, `node:http`, `Bun.serve`, or `in memory`. */
  get kind(): string {
    return this.#listener?.kind ?? "in memory";
  }

  /**
   * Serves on for drainDelay (readiness already says 503), then closes.
   * Resolves `false` when `signal` (the deadline) came first.
   */
  async stop(signal: AbortSignal): Promise<boolean> {
    if (this.#drainDelay > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await until(
        new Promise<void>((resolve) => {
          timer = unrefTimer(setTimeout(resolve, this.#drainDelay));
        }),
        signal,
      );
      clearTimeout(timer);
    }
    const closed = this.#listener === undefined
      ? true
      : await this.#listener.close(signal);
    this.#closed = true;
    return closed;
  }
}
