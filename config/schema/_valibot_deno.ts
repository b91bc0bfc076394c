// The valibot loader of Deno and browsers (#config/schema/valibot; Node.js and Bun
// load it on first use instead, see scripts/_variants.ts): valibot is imported
// with the module; Deno resolves it once, from its own cache, and a browser
// bundler includes it either way.
import * as valibot from "valibot";

/** Returns `valibot`. */
export function loadValibot(): typeof valibot {
  return valibot;
}
