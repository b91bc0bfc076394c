// The shape of a request handler the server calls: its own file, so the
// server's parts name it without importing the host's options.

/**
 * A Fetch-style request handler, with whatever extra arguments the server
 * passes after the request (Deno's connection info, Hono's environment).
 *
 * @typeParam A The extra arguments.
 *
 * @example Usage
 * ```ts
 * import type { FetchHandler } from "@vendor/kit/platform";
 *
 * const handler: FetchHandler<[]> = () => new Response("ok");
 * ```
 */
export type FetchHandler<A extends unknown[]> = (
  request: Request,
  ...args: A
) => Response | Promise<Response>;
