/**
 * Kit for [Hono](https://hono.dev) apps: serve `kit(hono)`, the Hono app's
 * `fetch` with Kit's error handling and route names, through the
 * application's `app.handle()` or the host's `serve` option.
 *
 * - An error thrown by a route or a middleware is answered as `app.handle()`
 *   answers a thrown error: a 500 JSON
 *   `{ message: "Internal Server Error", requestId }` that tells the client
 *   nothing about it, one error line in Kit's log with its stack (secrets
 *   masked) and the request id, and the request's span marked as an error.
 *   Hono's own default error handler (a plain-text 500 and a
 *   `console.error`) is not used for it.
 * - An `HTTPException` keeps its own response and status. An error whose
 *   `getResponse()` throws, or gives something other than a `Response`, is
 *   answered like any other error: Kit's JSON 500 and one error line.
 * - An error handler of your own (`hono.onError(...)`, before or after
 *   `kit(hono)`) still receives every error and its response is the one
 *   sent; Kit then logs nothing for it.
 * - The route template that matched (`/users/:id`) becomes `http.route` on
 *   the request's span (renamed `GET /users/:id`) and the `route` property
 *   of the access line (whose message keeps the real path). It is looked up
 *   only when one of them is written, so it costs nothing when neither is.
 *
 * `kit(hono)` adds no middleware: Hono answers a request that one handler
 * serves without its middleware chain, which is most of what a middleware
 * costs per request. The older form, `hono.use(kit())` first with
 * `hono.fetch` served, works as it did.
 *
 * This module loads nothing from Hono, not even its types (it describes the
 * little of Hono it uses); Hono stays an optional peer dependency of the
 * package.
 *
 * @example Usage
 * ```ts ignore
 * // Not run here: it serves until the process is stopped.
 * import { Hono } from "hono";
 * import { Application } from "@vendor/kit/platform";
 * import { kit } from "@vendor/kit/platform/hono";
 *
 * const app = await Application.start({ configuration: () => ({}) });
 * const hono = new Hono();
 * hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
 * Deno.serve(app.handle(kit(hono)));
 * ```
 *
 * @module
 */
import { type ContextFrame, frames } from "./server/_async_context_frame.ts";
import { type RouteOf, withRouteOf } from "./server/_route_of.ts";

/**
 * What {@linkcode kit} uses of Hono's `Context` (`c`): Hono's own `Context`
 * fits it, so `hono.use(kit())` type-checks without this module importing
 * Hono's types.
 *
 * @example Usage
 * ```ts
 * import type { Context } from "hono";
 * import type { HonoContext } from "@vendor/kit/platform/hono";
 *
 * const fits = (c: Context): HonoContext => c;
 * ```
 */
export interface HonoContext {
  /** The request; `routeIndex` is the handler running now. */
  readonly req: { routeIndex: number };
  /** The error a handler threw, once Hono (or Kit) caught it. */
  error: Error | undefined;
  /** The response so far. */
  res: Response;
  /** Whether a handler set a response. */
  finalized: boolean;
  /** The application's not-found response. */
  notFound(): Response | Promise<Response>;
}

/**
 * The middleware {@linkcode kit} returns, in Hono's shape: `(c, next)`.
 *
 * @example Usage
 * ```ts
 * import { kit, type KitMiddleware } from "@vendor/kit/platform/hono";
 *
 * const middleware: KitMiddleware = kit();
 * ```
 */
export type KitMiddleware = (
  c: HonoContext,
  next: () => Promise<void>,
) => Promise<void>;

// A route of the request as Hono matched it (the list `c.req.matchedRoutes`
// gives): the middleware and handlers to run, in order.
interface MatchedRoute {
  readonly path: string;
  readonly handler: (c: HonoContext, next: () => Promise<void>) => unknown;
}

// The response an error carries (an HTTPException's): Hono's default error
// handler answers with it, and so does Kit. `undefined` when the error has no
// getResponse(), or one that throws or gives something other than a
// Response: such an error is answered as any other, with Kit's JSON 500
// (Hono would answer 200 with an empty body, or print the stack and answer a
// plain-text 500).
function carriedResponse(error: Error): Response | undefined {
  try {
    const getResponse = (error as { getResponse?: unknown }).getResponse;
    if (typeof getResponse !== "function") return undefined;
    const response: unknown = getResponse.call(error);
    return response instanceof Response ? response : undefined;
  } catch {
    return undefined;
  }
}

function internalError(frame: ContextFrame): Response {
  return Response.json(
    { message: "Internal Server Error", requestId: frame.values?.requestId },
    { status: 500 },
  );
}

function matchedRoutes(c: HonoContext): readonly MatchedRoute[] | undefined {
  try {
    const routes = (c.req as unknown as { matchedRoutes?: unknown })
      .matchedRoutes;
    return Array.isArray(routes) ? routes as MatchedRoute[] : undefined;
  } catch {
    return undefined;
  }
}

// The route template worth naming: not the catch-all of a middleware.
function templateOf(route: MatchedRoute | undefined): string | undefined {
  const path = route?.path;
  return typeof path === "string" && path !== "*" && path !== "/*"
    ? path
    : undefined;
}

/**
 * What {@linkcode kit} uses of a Hono app (`new Hono()`): Hono's own `Hono`
 * fits it, so `kit(hono)` type-checks without this module importing Hono's
 * types.
 *
 * @example Usage
 * ```ts
 * import { Hono } from "hono";
 * import type { HonoApp } from "@vendor/kit/platform/hono";
 *
 * const app: HonoApp = new Hono();
 * ```
 */
export interface HonoApp {
  /** Answers a request (with the runtime's further arguments). */
  fetch(request: Request, ...args: never[]): Response | Promise<Response>;
  /** The app's router: what matches a method and path. */
  readonly router: { match(method: string, path: string): unknown };
  /** The path the router matches for a request. */
  getPath(request: Request): string;
  /** Sets the app's error handler. */
  onError(handler: HonoErrorHandler): unknown;
}

/**
 * An error handler in Hono's shape, `(error, c)`, as {@linkcode kit}
 * installs one with `hono.onError`.
 *
 * @example Usage
 * ```ts
 * import type { HonoErrorHandler } from "@vendor/kit/platform/hono";
 *
 * const handler: HonoErrorHandler = (error) =>
 *   new Response(error.message, { status: 500 });
 * ```
 */
export type HonoErrorHandler = (
  error: Error,
  c: object,
) => Response | Promise<Response>;

/**
 * The request handler {@linkcode kit} returns for a Hono app: the app's
 * `fetch`, the runtime's arguments passed on (Hono's `c.env`), to serve
 * through `app.handle()` or return from the host's `serve` option.
 *
 * @example Usage
 * ```ts
 * import { Hono } from "hono";
 * import { kit, type KitFetch } from "@vendor/kit/platform/hono";
 *
 * const handler: KitFetch = kit(new Hono());
 * ```
 */
export type KitFetch = (
  request: Request,
  ...args: unknown[]
) => Response | Promise<Response>;

// Hono's router gives, for a method and path, the matched handlers in the
// order Hono runs them, each as [[handler, route], params]: `route` is what
// the app registered ({ path, method }); `use()` and `mount()` register
// method "ALL" with a pattern ending in `*`. Hono answers with the first
// handler that gives a response, so the route named is the first that
// names one path; else the first handler's own pattern (`get("/files/*")`);
// else, unless nothing answered (404), the pattern of a middleware or a
// mounted app that answered. The catch-alls `*` and `/*` name nothing.
function routeOfMatch(matched: unknown, status: number): string | undefined {
  if (!Array.isArray(matched)) return undefined;
  let pattern: string | undefined;
  let middleware: string | undefined;
  for (const entry of matched) {
    const route: unknown = entry?.[0]?.[1];
    if (route === null || typeof route !== "object") continue;
    const { path, method } = route as { path?: unknown; method?: unknown };
    if (typeof path !== "string" || path === "*" || path === "/*") continue;
    if (!path.endsWith("*")) return path;
    if (method !== "ALL") pattern ??= path;
    else middleware ??= path;
  }
  return pattern ?? (status === 404 ? undefined : middleware);
}

// The route template of a request, matched again after the response (the
// router keeps its matcher; a static path is one lookup).
function routeNamer(hono: HonoApp): RouteOf {
  return (request, status) => {
    try {
      const method = request.method === "HEAD" ? "GET" : request.method;
      const result = hono.router.match(method, hono.getPath(request));
      return Array.isArray(result)
        ? routeOfMatch(result[0], status)
        : undefined;
    } catch {
      return undefined;
    }
  };
}

// Whether the app has an error handler of its own. Hono's default is one
// function shared by every app, so a new instance of Hono's own base class
// (the end of the app's class chain; it takes no arguments) has it, where a
// subclass of the app's may set its own in its constructor.
const defaultHandlers = new WeakMap<object, unknown>();

function hasOwnErrorHandler(hono: HonoApp): boolean {
  // (Hono's types keep `errorHandler` private; the field is a plain one.)
  const handler = (hono as { errorHandler?: unknown }).errorHandler;
  try {
    let base = hono.constructor as new () => { errorHandler?: unknown };
    for (;;) {
      const parent: unknown = Object.getPrototypeOf(base);
      if (typeof parent !== "function" || parent === Function.prototype) break;
      base = parent as typeof base;
    }
    if (!defaultHandlers.has(base)) {
      defaultHandlers.set(base, new base().errorHandler);
    }
    return defaultHandlers.get(base) !== handler;
  } catch {
    // Not constructible as expected: Hono names its default "errorHandler".
    return typeof handler !== "function" || handler.name !== "errorHandler";
  }
}

// The response an error carries, as Hono's default handler answers it: the
// headers set on the context before the error are kept.
function carriedAnswer(c: object, response: Response): Response {
  const newResponse = (c as { newResponse?: unknown }).newResponse;
  return typeof newResponse === "function"
    ? newResponse.call(c, response.body, response) as Response
    : response;
}

// Kit's error handler for kit(hono). Outside app.handle() it answers as
// Hono's default does.
const kitErrorHandler: HonoErrorHandler = (error, c) => {
  const carried = carriedResponse(error);
  if (carried !== undefined) return carriedAnswer(c, carried);
  const frame = frames.get()?.owner;
  if (frame === undefined || frame.values === undefined) {
    // As Hono's default: the headers set on the context are kept.
    console.error(error);
    const text = (c as { text?: unknown }).text;
    return typeof text === "function"
      ? text.call(c, "Internal Server Error", 500) as Response
      : new Response("Internal Server Error", {
        status: 500,
        headers: { "content-type": "text/plain; charset=UTF-8" },
      });
  }
  frame.failure = error;
  return internalError(frame);
};

/**
 * Makes a Hono app's request handler Kit's (see the module documentation):
 * errors become Kit's logged JSON 500 (through `hono.onError`, unless the
 * app has an error handler of its own), an `HTTPException` keeps its
 * response, and the matched route names the span and the access line. No
 * middleware is added. Outside `app.handle()` errors are answered as Hono
 * answers them.
 *
 * @param hono The Hono app, its routes registered before or after.
 * @returns Its request handler, for `app.handle(kit(hono))` or the host's
 * `serve: () => kit(hono)`.
 * @throws {TypeError} When `hono` is not a Hono app.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hono } from "hono";
 * import { Application } from "@vendor/kit/platform";
 * import { kit } from "@vendor/kit/platform/hono";
 *
 * await using app = await Application.start({ configuration: () => ({}) });
 * const hono = new Hono();
 * hono.get("/boom", () => {
 *   throw new Error("database password rejected"); // the client sees none of it
 * });
 * const handle = app.handle(kit(hono));
 * const response = await handle(new Request("http://localhost/boom"));
 * assert.equal(response.status, 500);
 * assert.equal((await response.json()).message, "Internal Server Error");
 * ```
 */
export function kit(hono: HonoApp): KitFetch;
/**
 * Creates Kit's Hono middleware, the older form of {@linkcode kit}`(hono)`:
 * errors become Kit's logged JSON 500, an `HTTPException` keeps its
 * response, and the matched route names the span and the access line.
 * Register it first; outside `app.handle()` it steps aside and Hono behaves
 * as without it. It puts every request through Hono's middleware chain,
 * which `kit(hono)` does not.
 *
 * @returns The middleware, for `hono.use(kit())`.
 *
 * @example Usage
 * ```ts
 * import { Hono } from "hono";
 * import { kit } from "@vendor/kit/platform/hono";
 *
 * const hono = new Hono();
 * hono.use(kit());
 * hono.get("/boom", () => {
 *   throw new Error("database password rejected"); // the client sees none of it
 * });
 * ```
 */
export function kit(): KitMiddleware;
export function kit(hono?: HonoApp): KitFetch | KitMiddleware {
  if (hono === undefined) return middleware();
  if (
    hono === null || typeof hono !== "object" ||
    typeof hono.fetch !== "function" || typeof hono.onError !== "function" ||
    typeof hono.router?.match !== "function" ||
    typeof hono.getPath !== "function"
  ) {
    throw new TypeError(
      "kit(hono): pass a Hono app (new Hono() from the hono package); for the middleware, call kit() with no argument",
    );
  }
  if (!hasOwnErrorHandler(hono)) hono.onError(kitErrorHandler);
  // The app's own fetch, bound: no call in between per request.
  const fetch = (hono.fetch as KitFetch).bind(hono);
  return withRouteOf(fetch, routeNamer(hono));
}

function middleware(): KitMiddleware {
  return async function kit(
    c: HonoContext,
    next: () => Promise<void>,
  ): Promise<void> {
    const frame = frames.get()?.owner;
    const routes = frame?.values === undefined ? undefined : matchedRoutes(c);
    if (frame === undefined || routes === undefined) {
      // Not a request of app.handle(): nothing to report to.
      await next();
      return;
    }
    // Runs the handlers after this one as Hono's compose does, except that
    // an error stops here first: Hono's error handler would print it with
    // console.error before a middleware could see it. The handlers in
    // between (and this one's caller) see `c.error` and a placeholder
    // response, as with Hono's own handling.
    let index = c.req.routeIndex;
    let caught: Error | undefined;
    // Whether the caught error carries a response of its own that works.
    let carries = false;
    const dispatch = async (i: number): Promise<void> => {
      if (i <= index) throw new Error("next() called multiple times");
      index = i;
      const route = routes[i];
      let response: unknown;
      let failed = false;
      if (route !== undefined) {
        c.req.routeIndex = i;
        try {
          response = await route.handler(c, () => dispatch(i + 1));
        } catch (error) {
          if (!(error instanceof Error)) throw error;
          caught = error;
          c.error = error;
          const carried = carriedResponse(error);
          carries = carried !== undefined;
          response = carried ?? internalError(frame);
          failed = true;
        }
      } else if (!c.finalized) {
        response = await c.notFound();
      }
      if (response instanceof Response && (!c.finalized || failed)) {
        c.res = response;
      }
    };
    await dispatch(index + 1);
    const template = templateOf(routes[Math.min(index, routes.length - 1)]);
    if (template !== undefined && index < routes.length) frame.route = template;
    // A middleware in between may have dealt with it (cleared c.error).
    if (caught === undefined || c.error !== caught) return;
    // Handed to the application's error handler, as Hono would: a handler
    // of your own answers as it likes; Hono's default one asks the error for
    // its response (as for an HTTPException), which is Kit's JSON 500 with
    // the error reported to app.handle(). An error whose own getResponse()
    // works keeps it; any other gets Kit's in its place (a broken one
    // shadowed) until the request ends.
    const error: Error = caught;
    if (carries) throw error;
    const kitResponse = (): Response => {
      frame.failure = error;
      return internalError(frame);
    };
    let own: PropertyDescriptor | undefined;
    try {
      own = Object.getOwnPropertyDescriptor(error, "getResponse");
      Object.defineProperty(error, "getResponse", {
        configurable: true,
        enumerable: false,
        writable: true,
        value: kitResponse,
      });
    } catch {
      // A frozen error cannot take it: a stand-in that inherits from it
      // (its class, message and stack) carries it instead.
      throw Object.create(error, { getResponse: { value: kitResponse } });
    }
    frame.after = () => {
      if (own === undefined) {
        delete (error as { getResponse?: unknown }).getResponse;
      } else Object.defineProperty(error, "getResponse", own);
    };
    throw error;
  };
}
