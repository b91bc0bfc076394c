// Deno flavour of the LogTape loader (the npm build uses _logtape_node.ts for
// Node.js and Bun, _logtape_browser.ts for browsers): LogTape is imported
// with the module; Deno resolves it once, from its own cache.
import * as logtape from "@logtape/logtape";

/** Returns `@logtape/logtape`. */
export function loadLogTape(): typeof logtape {
  return logtape;
}
