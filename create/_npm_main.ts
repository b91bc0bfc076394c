// The program of the npm package @vendor/create-kit, which `npm init
// @vendor/kit <folder>` runs: the generator with Kit from the registry that
// serves it, at `^` the package's own version (Kit's packages and the
// generator are released together, at one version).
import { readFileSync } from "node:fs";
import process from "node:process";
import { runGenerator } from "./_generate.ts";

/**
 * The package's version, from its package.json (the program is
 * `bin/create-kit.mjs`, one folder below it).
 *
 * @returns The version.
 * @throws {Error} When package.json is missing or has no version.
 */
function ownVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL("../package.json", import.meta.url), "utf8"),
  ) as { version?: string };
  if (typeof manifest.version !== "string") {
    throw new Error("@vendor/create-kit: package.json has no version");
  }
  return manifest.version;
}

/**
 * Runs the generator with Kit from the registry.
 *
 * @param args The arguments after the program name.
 * @returns The exit code.
 */
export function main(args: string[]): Promise<number> {
  return runGenerator(args, {
    command: "npm init @vendor/kit",
    defaultRuntime: "node",
    cwd: process.cwd(),
    kitSource: () =>
      Promise.resolve({ kind: "registry", version: ownVersion() }),
    kitFolders: () => [],
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  });
}
