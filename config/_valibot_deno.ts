// Deno flavour of the valibot loader (the npm build uses _valibot_node.ts
// for Node.js and Bun, _valibot_browser.ts for browsers): valibot is imported
// with the module, Deno resolves it once, from its own cache.
import * as valibot from "valibot";

/** Returns `valibot`. */
export function loadValibot(): typeof valibot {
  return valibot;
}
