// app.handle(): a request id per request (kept from X-Request-ID when it is a
// sane token), the handler run inside a RequestContext, X-Request-ID on the
// response, one access log line, and a 500 that tells the client nothing
// about the error. Each request also gets a span (platform/host/_telemetry.ts),
// active while the handler runs, and a point of
// http.server.request.duration; both are no-ops without an OpenTelemetry SDK.
// The request's scopes are disposed once its response is done, the response
// not waiting for what is asynchronous in it; with a server of Kit's own, a
// body sent as a stream is watched, so a failure while it is sent is logged.
import { messageOf } from "../host/_application_support.ts";
import { maskSecretText } from "../../core/mod.ts";
import { loadOpenTelemetryApi } from "../../internal/telemetry/open_telemetry.ts";
import { randomId } from "../../internal/random_id.ts";
import { ContextFrame, frames } from "./_async_context_frame.ts";
import { disposeFrameScopes } from "../locator/_scope.ts";
import {
  endServerSpan,
  type ServerSpan,
  startServerSpan,
} from "../host/_telemetry.ts";
import type { ApplicationLogger } from "../host/application_logger.ts";
import type { FetchHandler } from "./fetch_handler.ts";
import { routeOfHandler } from "./_route_of.ts";

// Letters, digits and . _ : + = / - ; at most 128 characters. Anything else
// (spaces, quotes, line breaks, a 10 kB header) is replaced, so a client
// cannot forge log lines through it.
const SANE_ID = /^[\w.:+=/-]{1,128}$/;

/**
 * The request id to use: the client's when sane, else a new UUID. A server
 * of Kit's own may read the header from the connection (`hooks.requestId`),
 * which spares building the request's `Headers`.
 */
export function requestIdOf(
  request: Request,
  hooks: HostHooks | undefined,
  argument: unknown,
): string {
  const given = hooks?.requestId === undefined
    ? request.headers.get("x-request-id")
    : hooks.requestId(argument);
  return given !== null && SANE_ID.test(given) ? given : randomId();
}

// The path of a URL without its query (which may hold secrets) or fragment,
// without the cost of a URL parse per request.
function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

function withHeader(response: Response, id: string): Response {
  try {
    response.headers.set("X-Request-ID", id);
    return response;
  } catch {
    // Immutable headers (a Response.redirect(), a proxied fetch response).
    try {
      const copy = new Response(response.body, response);
      copy.headers.set("X-Request-ID", id);
      return copy;
    } catch {
      // Response.error() (status 0) cannot be copied: pass it on as it is.
      return response;
    }
  }
}

// The body of a request's response, watched as it is sent: `ended` (when
// given) runs once it has been read to its end, failed, or been cancelled
// (the client went away), before the reader sees its end; `failed` gets a
// failure of the body, the bytes sent before it and the watched body's
// controller, which it ends.
function watchedBody(
  body: ReadableStream<Uint8Array>,
  ended: (() => void) | undefined,
  failed: (
    error: unknown,
    bytes: number,
    controller: ReadableStreamDefaultController<Uint8Array>,
  ) => void,
): ReadableStream<Uint8Array> {
  let done = false;
  let bytes = 0;
  const end = (): void => {
    if (!done) {
      done = true;
      ended?.();
    }
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        try {
          failed(error, bytes, controller);
        } finally {
          end();
        }
        return;
      }
      if (chunk.done) {
        end();
        controller.close();
      } else {
        bytes += chunk.value?.byteLength ?? 0;
        controller.enqueue(chunk.value);
      }
    },
    async cancel(reason): Promise<void> {
      try {
        await reader.cancel(reason);
      } finally {
        end();
      }
    },
  }, { highWaterMark: 0 });
}

/** How a server of Kit's own watches a response body as it is sent. */
export interface ResponseBodyWatch {
  /**
   * The body of `response` when it is sent as a stream, which may fail
   * while it is; `null` when it has none or one the runtime sends whole (a
   * string, bytes), which cannot.
   */
  stream(response: Response): ReadableStream<Uint8Array> | null;
  /**
   * Ends a response whose body failed (Kit logged it): the connection is
   * cut, so the client sees the response incomplete, and the runtime
   * reports nothing. `controller` is that of the body the runtime reads.
   */
  abort(
    argument: unknown,
    controller: ReadableStreamDefaultController<Uint8Array>,
  ): void;
}

/** Hands over a request's scope disposal still running, with the request id. */
export type TrackDisposal = (running: Promise<void>, requestId: string) => void;

/**
 * What a server of Kit's own tells app.handle about its requests, the same
 * for every request (one object per server): each method gets the
 * runtime's extra argument of the request.
 */
export interface HostHooks {
  /**
   * The request's X-Request-ID as read from the connection (`null` when
   * absent); without it app.handle reads the request's headers.
   */
  requestId?(argument: unknown): string | null;
  /**
   * Writes X-Request-ID on the connection itself and says `true`, or says
   * `false` when the response must carry it.
   */
  header?(response: Response, requestId: string, argument: unknown): boolean;
  /**
   * How a response body is watched as it is sent, so that a body that fails
   * is one error line of Kit's and the runtime reports nothing itself.
   */
  body?: ResponseBodyWatch;
}

/**
 * The property a server of Kit's own sets on the runtime's extra argument
 * (Deno's info, @hono/node-server's env): its {@linkcode HostHooks}.
 */
export const HOST_HOOKS: unique symbol = Symbol("kit.hostHooks");

/** The runtime's extra argument, as a server of Kit's own passes it. */
export interface HostArgument {
  [HOST_HOOKS]?: HostHooks;
}

// What a handler gave: a Response (known to be one), something to check, or
// an error it threw (or its promise rejected with).
const RESPONSE = 0;
const UNCHECKED = 1;
const THROWN = 2;
type Result = typeof RESPONSE | typeof UNCHECKED | typeof THROWN;

// The standard Response as it was when the first handler was wrapped. On
// Node.js, Kit's server replaces the global one with @hono/node-server's
// lighter subclass, whose own instanceof test (it also accepts the standard
// objects) costs a call per test; its objects are instances of the standard
// one as well. The global one as it is now is asked second, so that whatever
// it accepts (a Response class installed later) is still accepted. It is
// read on first use, not when the module loads: on Node.js the first read of
// the global Response loads the whole fetch implementation (undici, with
// node:http2, node:tls and node:zlib), most of the package's import time.
let StandardResponse: typeof Response | undefined;

function standardResponse(): typeof Response {
  return StandardResponse ??= Response;
}

function isResponse(value: unknown): value is Response {
  return value instanceof standardResponse() || value instanceof Response;
}

/** What the request's span needs to know about its answer. */
interface Outcome {
  status: number;
  failure: unknown;
}

/**
 * Wraps `handler`; `logger()` is read per request (logging may be replaced).
 * `track` receives the disposal of a request's scope that goes on after the
 * response (an asynchronous one), so that the host can wait for it.
 */
export function wrapHandler<A extends unknown[]>(
  handler: FetchHandler<A>,
  logger: () => ApplicationLogger,
  track?: TrackDisposal,
): (request: Request, ...args: A) => Promise<Response> {
  const run = requestRunner(handler, logger, track);
  return (request: Request, ...args: A): Promise<Response> => {
    const answer = run(request, args[0], args);
    return answer instanceof Promise ? answer : Promise.resolve(answer);
  };
}

/** A handler as the host's own server calls it: one argument after the request. */
export type HostHandler = (
  request: Request,
  argument?: unknown,
) => Response | Promise<Response>;

/**
 * {@linkcode wrapHandler} for the host's own server, whose runtime passes
 * one argument after the request (or none, in memory), passed on as it is:
 * a handler that answers at once (a Response, not a promise) is answered in
 * the same turn with the Response itself, no promise made for it (on
 * Node.js before 24, each promise made inside a request context costs its
 * hooks).
 */
export function wrapHostHandler(
  handler: HostHandler,
  logger: () => ApplicationLogger,
  track?: TrackDisposal,
): HostHandler {
  const run = requestRunner(handler, logger, track);
  return (request: Request, argument?: unknown) =>
    run(request, argument, undefined);
}

// The request's work, for both: `argument` is the runtime's first argument
// after the request (where a server of Kit's own puts its hooks); `args`,
// when given, all of them, passed on to the handler (app.handle), else the
// handler is called with `argument` alone (the host's server).
function requestRunner<A extends unknown[]>(
  handler: FetchHandler<A>,
  logger: () => ApplicationLogger,
  track: TrackDisposal | undefined,
): (
  request: Request,
  argument: unknown,
  args: A | undefined,
) => Response | Promise<Response> {
  if (typeof handler !== "function") {
    throw new TypeError("app.handle(handler): the handler must be a function");
  }
  // Before a server of Kit's own installs its Response (see above).
  standardResponse();
  // How the handler names a request's route (kit(hono)), asked only when the
  // access line or the span needs the name; a router that sets it itself
  // (the Hono middleware) has set frame.route by then.
  // "": asked, and none (a 404), so that it is asked once.
  const routeOf = routeOfHandler(handler);
  const routeFor = (
    request: Request,
    frame: ContextFrame,
    status: number,
  ): string | undefined => {
    let route = frame.route;
    if (route === undefined && routeOf !== undefined) {
      route = frame.route = routeOf(request, status) ?? "";
    }
    return route === "" ? undefined : route;
  };
  const call = handler as (
    request: Request,
    ...args: unknown[]
  ) => Response | Promise<Response>;
  // Logs a handler's error; `outcome` gets it for the span.
  const failed = (
    request: Request,
    requestId: string,
    error: unknown,
    outcome: Outcome | undefined,
  ): void => {
    if (outcome !== undefined) outcome.failure = error;
    const path = pathOf(request.url);
    // The message is masked here; the error's own text and stack are the
    // logger's to mask.
    logger().error(
      `${request.method} ${path} failed: ${maskSecretText(messageOf(error))}`,
      { error, method: request.method, path, requestId },
    );
  };
  // The handler's result made into the answer: a Response as it is (a
  // router's caught error logged), anything else logged and answered 500.
  const checked = (
    request: Request,
    requestId: string,
    frame: ContextFrame,
    outcome: Outcome | undefined,
    result: unknown,
    kind: Result,
  ): Response => {
    try {
      if (kind === THROWN) throw result;
      if (kind === UNCHECKED && !isResponse(result)) {
        throw new TypeError(
          `The handler returned ${
            result === undefined ? "undefined" : typeof result
          } instead of a Response`,
        );
      }
      // An error a router caught and answered with Kit's 500 (the Hono
      // middleware): reported as a thrown one.
      if (frame.failure !== undefined) {
        failed(request, requestId, frame.failure, outcome);
      }
      return result as Response;
    } catch (error) {
      failed(request, requestId, error, outcome);
      return Response.json(
        { message: "Internal Server Error", requestId },
        { status: 500, headers: { "Content-Type": "application/json" } },
      );
    }
  };
  // The access line and X-Request-ID, once the response is final.
  const finish = (
    request: Request,
    requestId: string,
    argument: unknown,
    hooks: HostHooks | undefined,
    frame: ContextFrame,
    outcome: Outcome | undefined,
    started: number,
    response: Response,
  ): Response => {
    if (outcome !== undefined) outcome.status = response.status;
    const log = logger();
    // Below the logger's level, the access line costs nothing to build.
    if (log.isEnabled === undefined || log.isEnabled(1)) {
      const durationMs = Math.round((performance.now() - started) * 100) /
        100;
      const path = pathOf(request.url);
      const route = routeFor(request, frame, response.status);
      log.info(
        `${request.method} ${path} ${response.status} ${durationMs} ms`,
        route === undefined
          ? {
            method: request.method,
            path,
            status: response.status,
            durationMs,
            requestId,
          }
          : {
            method: request.method,
            path,
            route,
            status: response.status,
            durationMs,
            requestId,
          },
      );
    }
    // Kit's own server on Node.js writes the header on the connection when
    // the response lets it, which spares building the response's headers.
    if (
      hooks?.header !== undefined &&
      hooks.header(response, requestId, argument)
    ) {
      return response;
    }
    return withHeader(response, requestId);
  };
  // A response body that failed while it was sent: the access line said
  // its status; this line says it was cut short.
  const bodyFailed = (
    request: Request,
    requestId: string,
    status: number,
    error: unknown,
    bytes: number,
  ): void => {
    const path = pathOf(request.url);
    logger().error(
      `${request.method} ${path} ${status} aborted: the response body failed after ${bytes} bytes: ${
        maskSecretText(messageOf(error))
      }`,
      {
        error,
        method: request.method,
        path,
        status,
        aborted: true,
        bytes,
        requestId,
      },
    );
  };
  // Disposes the request's scopes; the response does not wait for what
  // goes on asynchronously (a disposal, a creation still in flight): that
  // is handed to `track`, and failures are logged with the request id.
  const endScopes = (
    request: Request,
    requestId: string,
    frame: ContextFrame,
  ): void => {
    const running = disposeFrameScopes(frame, (error) => {
      const path = pathOf(request.url);
      logger().error(
        `${request.method} ${path}: disposing scoped services failed: ${
          maskSecretText(messageOf(error))
        }`,
        { error, method: request.method, path, requestId },
      );
    });
    if (running !== undefined) track?.(running, requestId);
  };
  // The rest of the request once the handler answered (or threw).
  const answer = (
    request: Request,
    requestId: string,
    argument: unknown,
    hooks: HostHooks | undefined,
    frame: ContextFrame,
    outcome: Outcome | undefined,
    started: number,
    result: unknown,
    kind: Result,
  ): Response | Promise<Response> => {
    let response: Response;
    try {
      response = checked(request, requestId, frame, outcome, result, kind);
      frame.after?.();
      const scoped = frame.scope !== undefined;
      // No scoped service was resolved: none may be after the response.
      if (!scoped) frame.closed = "ended";
      // A body sent as a stream is sent after the response is returned:
      // with a server of Kit's own it is watched, so that a failure while it
      // is sent is logged; a request's scope is disposed once it has been
      // sent (or failed, or was cancelled).
      const watch = hooks?.body;
      const body = watch !== undefined
        ? watch.stream(response)
        : scoped
        ? response.body
        : null;
      if (body !== null) {
        const status = response.status;
        response = new Response(
          watchedBody(
            body,
            scoped ? () => endScopes(request, requestId, frame) : undefined,
            (error, bytes, controller) => {
              if (watch === undefined) {
                controller.error(error);
                return;
              }
              try {
                bodyFailed(request, requestId, status, error, bytes);
              } finally {
                watch.abort(argument, controller);
              }
            },
          ),
          response,
        );
      } else if (scoped) {
        endScopes(request, requestId, frame);
      }
      return finish(
        request,
        requestId,
        argument,
        hooks,
        frame,
        outcome,
        started,
        response,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  };
  // `outcome`, when given, receives the status and the handler's error for
  // the request's span (only while an OpenTelemetry SDK is registered, so
  // the path without one is exactly the one before telemetry).
  //
  // A handler that answers at once (a Response, not a promise) is finished
  // in the same turn and answered with no promise at all (on Node.js before
  // 24, AsyncLocalStorage pays for each promise).
  const handle = (
    request: Request,
    requestId: string,
    argument: unknown,
    args: A | undefined,
    hooks: HostHooks | undefined,
    frame: ContextFrame,
    outcome?: Outcome,
  ): Response | Promise<Response> => {
    const started = performance.now();
    let result: Response | Promise<Response>;
    try {
      result = args === undefined
        // In memory the runtime passes nothing after the request.
        ? (argument === undefined ? call(request) : call(request, argument))
        : call(request, ...args);
    } catch (error) {
      return answer(
        request,
        requestId,
        argument,
        hooks,
        frame,
        outcome,
        started,
        error,
        THROWN,
      );
    }
    if (isResponse(result)) {
      return answer(
        request,
        requestId,
        argument,
        hooks,
        frame,
        outcome,
        started,
        result,
        RESPONSE,
      );
    }
    return Promise.resolve(result).then(
      (response) =>
        answer(
          request,
          requestId,
          argument,
          hooks,
          frame,
          outcome,
          started,
          response,
          UNCHECKED,
        ),
      (error) =>
        answer(
          request,
          requestId,
          argument,
          hooks,
          frame,
          outcome,
          started,
          error,
          THROWN,
        ),
    );
  };
  const traced = async (
    request: Request,
    requestId: string,
    argument: unknown,
    args: A | undefined,
    hooks: HostHooks | undefined,
    frame: ContextFrame,
    server: ServerSpan,
  ): Promise<Response> => {
    const started = performance.now();
    const outcome: Outcome = { status: 500, failure: undefined };
    try {
      return await handle(
        request,
        requestId,
        argument,
        args,
        hooks,
        frame,
        outcome,
      );
    } finally {
      // The route a router matched (kit() with Hono) names the span.
      const span = server.span;
      const route = span === undefined
        ? undefined
        : routeFor(request, frame, outcome.status);
      if (span !== undefined && route !== undefined) {
        span.setAttribute("http.route", route);
        span.updateName(`${request.method} ${route}`);
      }
      // Ended even when a logger throws.
      endServerSpan(server, request, outcome.status, outcome.failure, started);
    }
  };
  return (
    request: Request,
    argument: unknown,
    args: A | undefined,
  ): Response | Promise<Response> => {
    const hooks = argument === null || typeof argument !== "object"
      ? undefined
      : (argument as HostArgument)[HOST_HOOKS];
    const requestId = requestIdOf(request, hooks, argument);
    // The same store as RequestContext (one per process), without the
    // checks and the copy that RequestContext.run makes of foreign values.
    // The frame owns the request's scope, made on the first scoped service.
    const frame = new ContextFrame(undefined, null, requestId);
    return frames.run(frame, () => {
      const server = startServerSpan(request, requestId, pathOf);
      if (server === undefined) {
        return handle(request, requestId, argument, args, hooks, frame);
      }
      // The span is active while the handler runs: Kit's HTTP calls, cache
      // reads and log entries inside it are its children. (A span exists
      // only while a provider is registered, so the API is loaded then.)
      return server.context === undefined
        ? traced(request, requestId, argument, args, hooks, frame, server)
        : loadOpenTelemetryApi().context.with(
          server.context,
          () =>
            traced(request, requestId, argument, args, hooks, frame, server),
        );
    });
  };
}
