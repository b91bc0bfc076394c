// The `kit-i18n` command (`deno task i18n:types` / `deno task i18n:check`):
// generates key types from a resource file and checks the resources of a
// folder. Run by scripts/i18n.ts (Deno) and bin/kit-i18n.mjs (npm); never
// imported from mod.ts.
import process from "node:process";

const USAGE = `Usage:
  kit-i18n types <resource.json> [--out <file.d.ts>] [--module <specifier>]
  kit-i18n check <folder> [--default <culture>] [--source <dir>...]
`;

/**
 * Runs the command.
 *
 * @param args The arguments after the program name.
 * @returns The exit code: 0 when all is well, 1 when something is wrong, 2
 * for bad usage.
 */
export async function main(args: string[]): Promise<number> {
  await Promise.resolve();
  const [command] = args;
  if (command === "types" || command === "check") {
    process.stderr.write(`kit-i18n ${command}: not implemented yet\n`);
    return 1;
  }
  process.stderr.write(USAGE);
  return 2;
}
