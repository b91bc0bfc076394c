// Node.js and Bun flavour of the LogTape loader (chosen by
// scripts/_variants.ts in place of _logtape_deno.ts): LogTape is loaded on
// the first call, synchronously, when the first console or file provider
// builds its sink or formatter, so a process that logs elsewhere (or not at
// all) never pays for loading it at start-up (figure in
// BENCHMARKS.md, "Cold import in Node").
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../internal/require_dependency.ts";
import type * as LogTape from "@logtape/logtape";

declare const __filename: string | undefined;

let logtape: typeof LogTape | undefined;

/** Returns `@logtape/logtape`, loading it on the first call. */
export function loadLogTape(): typeof LogTape {
  if (logtape === undefined) {
    logtape = requireDependency(
      "@logtape/logtape",
      "@vendor/kit-platform-logging",
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof LogTape;
  }
  return logtape;
}
