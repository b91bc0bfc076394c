/**
 * The project generator, run from a checkout of Kit:
 * `deno task create <folder> [--runtime deno|node] [--module esm|commonjs]
 * [--redis] [--postgres] [--force]`. The project uses this checkout: a Deno
 * project lists it under `links`; a Node.js project installs Kit's packages
 * built from it and packed into its `vendor/` folder.
 *
 * @module
 */
import process from "node:process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CreateOptions } from "./_options.ts";
import type { KitSource } from "./_project_files.ts";
import { nearPath, runGenerator } from "./_generate.ts";
import { kitPackages } from "./_source_files.ts";
import { packCheckout, reuseSetting } from "./_checkout.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Exit code of a bad command line or setting, as {@linkcode runGenerator}'s. */
const USAGE = 2;

/**
 * Runs the generator with Kit from this checkout.
 *
 * @param args The arguments after the task name.
 * @returns The exit code.
 */
export function main(args: string[]): Promise<number> {
  // Read before anything is written: a bad value stops the run at once.
  let reuse: boolean;
  try {
    reuse = reuseSetting(process.env.KIT_NPM_REUSE);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return Promise.resolve(USAGE);
  }
  return runGenerator(args, {
    command: "deno task create",
    defaultRuntime: "deno",
    // `deno task` runs in the checkout's root; INIT_CWD is where it was
    // typed, which is what a relative folder means to the user.
    cwd: process.env.INIT_CWD ?? process.cwd(),
    kitSource: async (
      options: CreateOptions,
      dir: string,
    ): Promise<KitSource> => ({
      kind: "checkout",
      link: nearPath(dir, ROOT),
      packages: options.runtime === "node"
        ? await packCheckout(dir, kitPackages(options), {
          reuse,
          note: (text) => console.log(text),
        })
        : {},
    }),
    kitFolders: (options: CreateOptions): readonly string[] =>
      options.runtime === "node" ? ["vendor"] : [],
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  });
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
