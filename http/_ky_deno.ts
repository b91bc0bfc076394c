// The ky loader of Deno and browsers (#http/ky; Node.js and Bun load it on
// first use instead, see scripts/_variants.ts): ky is imported with the module,
// which costs Deno nothing worth deferring, and a browser bundler includes it
// either way.
import ky from "ky";

/** Returns ky's default export. */
export function loadKy(): typeof ky {
  return ky;
}
