// A request handler may carry a way to name the route a request took (Kit's
// Hono adapter, `kit(hono)`, puts one on the handler it returns). The
// request handler asks it after the response, and only when the access line
// or a span needs the name, so a request that needs none pays nothing for
// it. A registered symbol: the Hono entry point is a bundle of its own in
// the npm package, and a second copy of the platform package must read it
// too.
const KEY = Symbol.for("@vendor/kit-platform/route-of");

/**
 * Names the route template that answered `request` with `status`, if one
 * did.
 */
export type RouteOf = (request: Request, status: number) => string | undefined;

/** The route namer a handler carries, if any. */
export function routeOfHandler(handler: unknown): RouteOf | undefined {
  if (typeof handler !== "function") return undefined;
  const value = (handler as unknown as Record<symbol, unknown>)[KEY];
  return typeof value === "function" ? value as RouteOf : undefined;
}

/** Puts `routeOf` on `handler` (nothing when it is undefined). */
export function withRouteOf<T extends object>(
  handler: T,
  routeOf: RouteOf | undefined,
): T {
  if (routeOf !== undefined) {
    Object.defineProperty(handler, KEY, { value: routeOf });
  }
  return handler;
}
