// Environment variables set for the length of one call, then restored (or
// removed again): what a test of "this value came from that variable" needs
// without leaking the variables into later tests.
import process from "node:process";

/**
 * Runs `run` with `values` set as environment variables, then puts back what
 * each variable held before (removing those that were unset).
 *
 * @param values Variable names and the values to set.
 * @param run What to do while they are set.
 * @returns What `run` returned.
 */
export async function withVariables<T>(
  values: Record<string, string>,
  run: () => T | Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(
    Object.keys(values).map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, values);
  try {
    return await run();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
