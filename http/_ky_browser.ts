// Browser flavour of the ky loader (chosen by scripts/build_npm.ts under the
// `browser` condition, in place of the Node.js loader, which has no way to
// load anything in a browser): ky is imported with the module, as in Deno; a
// web bundler includes it in the bundle either way.
import ky from "ky";

/** Returns ky's default export. */
export function loadKy(): typeof ky {
  return ky;
}
