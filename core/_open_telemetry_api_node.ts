// Node.js and Bun flavour of the OpenTelemetry API loader (chosen by
// scripts/build_npm.ts in place of _open_telemetry_api_deno.ts): the API is
// loaded on the first call, synchronously, so a process that never registers
// an SDK never loads it (about 25 ms of a cold start in Node.js 20).
//
// The ES bundle loads the API's ES module file, resolved as an `import`
// would resolve it, through require(esm) (Node.js 20.19 and later, Bun):
// the same instance as the application's own `import "@opentelemetry/api"`.
// The CommonJS bundle (where esbuild leaves `import.meta` empty) loads what
// `require` gives. Either way the name resolves from this package's own
// folder, where its package manager put its dependency.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "./dependency_load_error.ts";
import type * as Api from "@opentelemetry/api";

declare const __filename: string | undefined;

let api: typeof Api | undefined;
// Set when the API could not be loaded: telemetry is then off for good.
let unavailable = false;

/**
 * Returns `@opentelemetry/api`, loading it on the first call.
 *
 * @throws {DependencyLoadError} When it cannot be loaded.
 */
export function loadApi(): typeof Api {
  if (api === undefined) {
    try {
      api = requireDependency() as typeof Api;
    } catch (error) {
      unavailable = true;
      throw error;
    }
  }
  return api;
}

/**
 * Whether the API can be used, loading it the first time something is
 * registered: an application bundled with its own copy of the API and the
 * SDK, but without Kit's dependencies (a bundler cannot follow a load by
 * name), must not fail its requests because Kit cannot record them. It then
 * records nothing and says so once.
 */
export function apiAvailable(): boolean {
  if (api !== undefined) return true;
  if (unavailable) return false;
  try {
    loadApi();
    return true;
  } catch (error) {
    globalThis.console.warn(
      `An OpenTelemetry SDK is registered, but Kit records no telemetry: ${
        (error as Error).message
      }`,
    );
    return false;
  }
}

const NAME = "@opentelemetry/api";
const PACKAGE = "@vendor/kit-core";

// Loads NAME from this package's folder (see the first comment); a failure
// (not installed, or left out of a bundle) names both packages and the fix.
function requireDependency(): unknown {
  const meta = import.meta as Partial<ImportMeta>;
  try {
    if (typeof meta.resolve === "function") {
      return createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)));
    }
    if (typeof __filename === "string") return createRequire(__filename)(NAME);
    throw new Error(
      "this module host has neither import.meta.resolve nor __filename",
    );
  } catch (error) {
    throw new DependencyLoadError(NAME, PACKAGE, error);
  }
}
