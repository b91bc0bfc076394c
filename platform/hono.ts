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
import { type ContextFrame, frames } from "./server/_async_context_frame.ts";

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
