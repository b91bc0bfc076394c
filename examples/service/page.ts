// The page's files: index.html and the bundle app.js. A Node.js or Bun build
// has them in dist/public/ (written by `npm run build`); under Deno, running
// the sources, the bundle is built in memory on its first request.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The page's files. */
export interface PageAssets {
  /** The HTML of the page. */
  html(): Promise<string>;
  /** The JavaScript bundle. */
  script(): Promise<string>;
}

/**
 * Finds the page: prebuilt next to this module (`dist/public/`), or built
 * from `public/app.ts` and Kit's sources when running on Deno.
 *
 * @returns The page's files; each read fails with a message saying how to
 * build them when they are missing.
 */
export function pageAssets(): PageAssets {
  const here = dirname(fileURLToPath(import.meta.url));
  const folder = join(here, "public");
  const prebuilt = join(folder, "app.js");
  let html: Promise<string> | undefined;
  let script: Promise<string> | undefined;
  const onDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;
  return {
    html: () => html ??= readFile(join(folder, "index.html"), "utf8"),
    script: () =>
      script ??= (async () => {
        if (existsSync(prebuilt)) return await readFile(prebuilt, "utf8");
        if (onDeno && existsSync(join(folder, "app.ts"))) {
          const { buildPage } = await import("./build_page.ts");
          return (await buildPage({ root: here, from: "sources" })).code;
        }
        throw new Error(
          `The page bundle ${prebuilt} is missing: build the service with "npm run build" (the Dockerfile does)`,
        );
      })().catch((error) => {
        script = undefined; // try again on the next request
        throw error;
      }),
  };
}
