// Deno flavour of the ky loader (the npm build uses _ky_node.ts for Node.js
// and Bun, _ky_browser.ts for browsers): ky is imported with the module,
// which costs Deno nothing worth deferring.
import ky from "ky";

/** Returns ky's default export. */
export function loadKy(): typeof ky {
  return ky;
}
