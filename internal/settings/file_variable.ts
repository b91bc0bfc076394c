// `<NAME>_FILE` variables name a file holding the value of `<NAME>` (Docker
// and Kubernetes secrets are mounted as files). The configuration reads
// them; whatever quotes a value tells by the source label whether it came
// from one, since such a value is a secret whatever its key.

/**
 * What marks a variable as naming a file.
 *
 * @example Usage
 * ```ts
 * import { FILE_SUFFIX } from "./file_variable.ts";
 *
 * FILE_SUFFIX; // "_FILE"
 * ```
 */
export const FILE_SUFFIX = "_FILE";

/**
 * The variable a `<NAME>_FILE` variable stands for.
 *
 * @param name A variable's name.
 * @returns `<NAME>` for `<NAME>_FILE` (the suffix in any letter case);
 * `undefined` when the name does not end so, or is the suffix alone.
 *
 * @example Usage
 * ```ts
 * import { withoutFileSuffix } from "./file_variable.ts";
 *
 * withoutFileSuffix("APP_DB__PASSWORD_FILE"); // "APP_DB__PASSWORD"
 * withoutFileSuffix("APP_PROFILE"); // undefined
 * ```
 */
export function withoutFileSuffix(name: string): string | undefined {
  if (name.length <= FILE_SUFFIX.length) return undefined;
  if (name.slice(-FILE_SUFFIX.length).toUpperCase() !== FILE_SUFFIX) {
    return undefined;
  }
  const base = name.slice(0, -FILE_SUFFIX.length);
  return base.endsWith("_") ? undefined : base;
}

/**
 * Tells whether a configuration source label is that of a `<NAME>_FILE`
 * variable (`env APP_DB__PASSWORD_FILE`).
 *
 * @param source A source label, as `getSource(key)` gives it.
 * @returns `true` for a `<NAME>_FILE` variable's label.
 *
 * @example Usage
 * ```ts
 * import { isFileSource } from "./file_variable.ts";
 *
 * isFileSource("env APP_DB__PASSWORD_FILE"); // true
 * isFileSource("env APP_DB__PASSWORD"); // false
 * ```
 */
export function isFileSource(source: string): boolean {
  // The suffix in any letter case, as the environment providers read it.
  return source.startsWith("env ") &&
    withoutFileSuffix(source.slice(4)) !== undefined;
}
