// Loads @hono/node-server for the host's HTTP server on Node.js
// (_server_node.ts, which the npm build ships in place of _server_deno.ts;
// Deno serves with Deno.serve, Bun with Bun.serve, so neither loads it). It
// is loaded on the first `serve`, synchronously, so that an application
// that never serves, or a tool that only imports the package, does not load
// it.
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../../internal/require_dependency.ts";
import type * as NodeServer from "@hono/node-server";

declare const __filename: string | undefined;

let nodeServer: typeof NodeServer | undefined;

/**
 * Returns `@hono/node-server`'s `getRequestListener`, loading the package on
 * the first call.
 *
 * @throws {DependencyLoadError} When it cannot be loaded.
 */
export function loadGetRequestListener(): typeof NodeServer.getRequestListener {
  nodeServer ??= requireDependency(
    "@hono/node-server",
    "@vendor/kit-platform",
    import.meta,
    typeof __filename === "string" ? __filename : undefined,
  ) as typeof NodeServer;
  return nodeServer.getRequestListener;
}
