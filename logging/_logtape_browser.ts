// Browser flavour of the LogTape loader (chosen by scripts/build_npm.ts under
// the `browser` condition, in place of the Node.js loader, which has no way to
// load anything in a browser): LogTape is imported with the module, as in
// Deno; a web bundler includes it in the bundle either way.
import * as logtape from "@logtape/logtape";

/** Returns `@logtape/logtape`. */
export function loadLogTape(): typeof logtape {
  return logtape;
}
