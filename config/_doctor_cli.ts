// The `kit doctor` command line: `deno task doctor [folder]`, `npx kit-doctor`.
import process from "node:process";

/**
 * Runs the doctor with command-line arguments.
 *
 * @param args The arguments after the program name.
 * @returns The exit code: 0 all checks pass, 1 a check fails, 2 bad usage.
 */
export async function main(args: string[]): Promise<number> {
  await Promise.resolve();
  process.stdout.write(`kit doctor: not ready yet (${args.join(" ")})\n`);
  return 0;
}
