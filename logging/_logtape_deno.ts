// The LogTape loader of Deno and browsers (#logging/logtape; Node.js and Bun
// load it on first use instead, see scripts/_variants.ts): LogTape is imported
// with the module; Deno resolves it once, from its own cache, and a browser
// bundler includes it either way.
import * as logtape from "@logtape/logtape";

/** Returns `@logtape/logtape`. */
export function loadLogTape(): typeof logtape {
  return logtape;
}
