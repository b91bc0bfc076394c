/**
 * Builds the eight npm packages (issue 9). Not written yet: this placeholder
 * fails with a clear message so nobody mistakes it for a working build.
 *
 * @module
 */
console.error(
  "build:npm is not implemented yet: the npm build lands with issue 9 " +
    "(scripts/build_npm.ts). Use the Deno sources or JSR meanwhile.",
);
Deno.exit(1);
