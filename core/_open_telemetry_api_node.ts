// Node.js and Bun flavour of the OpenTelemetry API loader (chosen by
// scripts/build_npm.ts in place of _open_telemetry_api_deno.ts): the API is
// loaded on the first call, synchronously, so a process that never registers
// an SDK never loads it (about 20 ms of a cold start in Node.js 20).
//
// The ES bundle loads the API's ES module file, resolved as an `import`
// would resolve it, through require(esm) (Node.js 20.19 and later, Bun):
// the same instance as the application's own `import "@opentelemetry/api"`.
// The CommonJS bundle (where esbuild leaves `import.meta` empty) loads what
// `require` gives. Either way the name resolves from this package's own
// folder, where its package manager put its dependency.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Api from "@opentelemetry/api";

declare const __filename: string | undefined;

let api: typeof Api | undefined;

/** Returns `@opentelemetry/api`, loading it on the first call. */
export function loadApi(): typeof Api {
  if (api === undefined) {
    const meta = import.meta as Partial<ImportMeta>;
    api = (typeof meta.resolve === "function"
      ? createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)))
      : createRequire(__filename!)(NAME)) as typeof Api;
  }
  return api;
}

const NAME = "@opentelemetry/api";
