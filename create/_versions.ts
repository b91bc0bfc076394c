// The ranges a generated project depends on besides Kit. They follow the
// ranges Kit itself is built and tested with (deno.json, and deno.dev.json
// for TypeScript); tests/create/ checks that they still agree.

/** npm packages of a generated project, by name: the range to install. */
export const VERSIONS = {
  hono: "^4.13.19",
  valibot: "^1.5.0",
  pg: "^8.23.1",
  "@types/pg": "^8.23.1",
  "@electric-sql/pglite": "^0.5.17",
  typescript: "~5.9.3",
  "@types/node": "^20.19.0",
} as const;

/** The Deno version the generated Dockerfile's image is pinned to. */
export const DENO_IMAGE = "denoland/deno:2.9.6";
