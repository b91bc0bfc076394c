// Node.js and Bun flavour of the ky loader (chosen by scripts/_variants.ts in
// place of _ky_deno.ts): ky is loaded when the first HttpClient is made,
// synchronously, because loading it builds a `Request`, which makes Node.js
// load undici: a large share of a cold start that a process which never
// makes a client should not pay (figures in BENCHMARKS.md, "Cold import in Node").
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../internal/require_dependency.ts";
import type * as Ky from "ky";

declare const __filename: string | undefined;

let ky: typeof Ky.default | undefined;

/** Returns ky's default export, loading ky on the first call. */
export function loadKy(): typeof Ky.default {
  if (ky === undefined) {
    const module = requireDependency(
      "ky",
      "@vendor/kit-platform-http",
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof Ky;
    ky = module.default;
  }
  return ky;
}
