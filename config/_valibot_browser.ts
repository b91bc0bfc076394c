// Browser flavour of the valibot loader (chosen by scripts/build_npm.ts
// under the `browser` condition, in place of _valibot_node.ts): valibot is
// imported with the module, as in Deno, since a browser bundler includes it
// in the bundle either way and has no synchronous loader.
import * as valibot from "valibot";

/** Returns `valibot`. */
export function loadValibot(): typeof valibot {
  return valibot;
}
