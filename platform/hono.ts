/**
 * Kit's middleware for [Hono](https://hono.dev): `hono.use(kit())`, with the
 * Hono app's `fetch` passed through the application's `app.handle()`.
 *
 * - An error thrown by a route (or a middleware after `kit()`) is answered
 *   as `app.handle()` answers a thrown error: a 500 JSON
 *   `{ message: "Internal Server Error", requestId }` that tells the client
 *   nothing about it, one error line in Kit's log with its stack (secrets
 *   masked) and the request id, and the request's span marked as an error.
 *   Hono's own default error handler (a plain-text 500 and a
 *   `console.error`) is not used for it.
 * - An `HTTPException` keeps its own response and status. An error whose
 *   `getResponse()` throws, or gives something other than a `Response`, is
 *   answered like any other error: Kit's JSON 500 and one error line.
 * - An error handler of your own (`hono.onError(...)`) still receives every
 *   error and its response is the one sent; Kit then logs nothing for it.
 * - The route template that matched (`/users/:id`) becomes `http.route` on
 *   the request's span (renamed `GET /users/:id`) and the `route` property
 *   of the access line (whose message keeps the real path).
 *
 * Register it first, before other middleware, so that it sees the errors of
 * all of them. This module loads nothing from Hono, not even its types (it
 * describes the little of Hono's `Context` it uses); Hono stays an optional
 * peer dependency of the package.
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
 * hono.use(kit());
 * hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
 * Deno.serve(app.handle(hono.fetch));
 * ```
 *
 * @module
 */
import { type ContextFrame, frames } from "./_async_context_frame.ts";

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
 * Creates Kit's Hono middleware (see the module documentation): errors
 * become Kit's logged JSON 500, an `HTTPException` keeps its response, and
 * the matched route names the span and the access line. Outside
 * `app.handle()` it steps aside and Hono behaves as without it.
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
export function kit(): KitMiddleware {
  return function kit(
    c: HonoContext,
    next: () => Promise<void>,
  ): Promise<void> {
    const frame = frames.get()?.owner;
    const routes = frame?.values === undefined ? undefined : matchedRoutes(c);
    if (frame === undefined || routes === undefined) {
      // Not a request of app.handle(): nothing to report to.
      return stepAside(next);
    }
    const run = new Run(c, frame, routes);
    try {
      const running = run.step(c.req.routeIndex + 1);
      return running === undefined ? run.end() : running.then(() => run.end());
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

async function stepAside(next: () => Promise<void>): Promise<void> {
  await next();
}

// What is left once the handlers ran: nothing, or the caught error for the
// application's error handler.
const DONE: Promise<void> = Promise.resolve();

// One request's run of the handlers after kit(), as Hono's compose runs
// them, except that an error stops here first: Hono's error handler would
// print it with console.error before a middleware could see it. The handlers
// in between (and kit()'s caller) see `c.error` and a placeholder response,
// as with Hono's own handling. A handler that answers at once (most routes)
// is answered at once: no promise is made for it, which on Node.js spares
// the context hooks every promise pays.
class Run {
  readonly #c: HonoContext;
  readonly #frame: ContextFrame;
  readonly #routes: readonly MatchedRoute[];
  #index: number;
  #caught: Error | undefined = undefined;
  // Whether the caught error carries a response of its own that works.
  #carries = false;

  constructor(
    c: HonoContext,
    frame: ContextFrame,
    routes: readonly MatchedRoute[],
  ) {
    this.#c = c;
    this.#frame = frame;
    this.#routes = routes;
    this.#index = c.req.routeIndex;
  }

  // Runs handler `i` (and, through its next(), those after it): undefined
  // when done at once, else a promise of it. Throws (or rejects) as Hono's
  // dispatch would reject.
  step(i: number): Promise<void> | undefined {
    if (i <= this.#index) throw new Error("next() called multiple times");
    this.#index = i;
    const c = this.#c;
    const route = this.#routes[i];
    if (route === undefined) {
      if (c.finalized) return undefined;
      const found: unknown = c.notFound();
      if (isThenable(found)) {
        return Promise.resolve(found).then((response) =>
          this.#settle(response, false)
        );
      }
      this.#settle(found, false);
      return undefined;
    }
    c.req.routeIndex = i;
    let result: unknown;
    try {
      result = route.handler(c, () => this.#next(i + 1));
    } catch (error) {
      this.#settle(this.#fail(error), true);
      return undefined;
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (response) => this.#settle(response, false),
        (error) => this.#settle(this.#fail(error), true),
      );
    }
    this.#settle(result, false);
    return undefined;
  }

  // A handler's next(): always a promise, as Hono's.
  #next(i: number): Promise<void> {
    try {
      return this.step(i) ?? DONE;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(response: unknown, failed: boolean): void {
    if (response instanceof Response && (!this.#c.finalized || failed)) {
      this.#c.res = response;
    }
  }

  // A handler's error: Kit's (or the error's own) response in its place.
  #fail(error: unknown): Response {
    if (!(error instanceof Error)) throw error;
    this.#caught = error;
    this.#c.error = error;
    const carried = carriedResponse(error);
    this.#carries = carried !== undefined;
    return carried ?? internalError(this.#frame);
  }

  // Once the handlers ran: the route for the span and the access line, and
  // an error handed on to the application's error handler.
  end(): Promise<void> {
    const routes = this.#routes;
    const index = this.#index;
    const frame = this.#frame;
    const template = templateOf(routes[Math.min(index, routes.length - 1)]);
    if (template !== undefined && index < routes.length) frame.route = template;
    const caught = this.#caught;
    // A middleware in between may have dealt with it (cleared c.error).
    if (caught === undefined || this.#c.error !== caught) return DONE;
    return Promise.reject(handOn(caught, this.#carries, frame));
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value instanceof Promise ||
    (typeof value === "object" && value !== null &&
      typeof (value as { then?: unknown }).then === "function");
}

// The error to hand to the application's error handler, as Hono would: a
// handler of your own answers as it likes; Hono's default one asks the error
// for its response (as for an HTTPException), which is Kit's JSON 500 with
// the error reported to app.handle(). An error whose own getResponse() works
// keeps it; any other gets Kit's in its place (a broken one shadowed) until
// the request ends.
function handOn(error: Error, carries: boolean, frame: ContextFrame): Error {
  if (carries) return error;
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
    // A frozen error cannot take it: a stand-in that inherits from it (its
    // class, message and stack) carries it instead.
    return Object.create(error, { getResponse: { value: kitResponse } });
  }
  frame.after = () => {
    if (own === undefined) {
      delete (error as { getResponse?: unknown }).getResponse;
    } else Object.defineProperty(error, "getResponse", own);
  };
  return error;
}
