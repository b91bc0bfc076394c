import { SECRET_MASK } from "../core/mod.ts";
import { DEFAULT_KEYS, Redactor } from "./_redactor.ts";
import type { LogProperties } from "./log_entry.ts";

/**
 * The property keys every built-in provider masks: core's secret words
 * (`secretKeyWords`: `password`, `pass`, `pwd`, `passphrase`, `secret`,
 * `secretAccessKey`, `apiKey`, `token`, `bearer`, `authorization`,
 * `credential`, `connectionString`, `dsn`…) and `session`, `cookie`,
 * `private` (`secretValueKeyWords`). It is the rule the configuration uses,
 * so a key masked in `config.explain()` is masked in logs too.
 *
 * A key matches when it ends with one of them, ignoring letter case, `_`,
 * `-`, `.`, blanks, a plural `s` and trailing digits (`dbPassword`,
 * `X-Api-Key`, `accessToken`, `DB_CONNECTION_STRING`, `smtp_pass`; not
 * `tokenExpiry` nor `compass`). `session`, `cookie` and `private` mask a
 * string, number or list, but an object under them is walked key by key and
 * a boolean is kept. Whatever the key, string values are masked by shape:
 * the password of a URL (`postgres://app:***@db/app`), `Bearer ***`,
 * `password=***` pairs. Providers take `redactKeys` to add more.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_REDACTED_KEYS } from "@vendor/kit/logging";
 *
 * console.log(DEFAULT_REDACTED_KEYS.includes("password")); // true
 * ```
 */
export const DEFAULT_REDACTED_KEYS: readonly string[] = DEFAULT_KEYS;

/**
 * What a masked value is written as: `***`.
 *
 * @example Usage
 * ```ts
 * import { REDACTED_VALUE } from "@vendor/kit/logging";
 *
 * console.log(REDACTED_VALUE); // "***"
 * ```
 */
export const REDACTED_VALUE: "***" = SECRET_MASK as "***";

/** Options of {@linkcode redactProperties}. */
export interface RedactOptions {
  /**
   * Keys to mask besides {@linkcode DEFAULT_REDACTED_KEYS}. A string matches
   * the way the defaults do (the end of the key, any letter case, ignoring
   * `_`, `-`, `.` and blanks); a RegExp is tested against the key as
   * written.
   */
  keys?: readonly (string | RegExp)[];
}

/**
 * Returns the properties with every secret value replaced by `***` (by key
 * name, and by shape inside strings: URL passwords, Bearer tokens), following
 * nested plain objects and arrays at any depth (a cycle is written as
 * `"[Circular]"`, nesting beyond 100 levels as `"[Truncated]"`). `Error` values become
 * `{ name, message, stack }` (secrets masked by shape; bounded as the built-in
 * providers bound an entry's error: a message cut past 16,384 characters,
 * stack frames past 32,768, 10 errors of an `AggregateError`, 20 errors in
 * full per call, the others by name and message) and bigints strings, so the
 * result is ready for `JSON.stringify`. The input is never changed; when nothing had to be masked
 * or converted it is returned as it is.
 *
 * The built-in providers do this themselves; call it from a custom
 * {@linkcode ILogProvider} before writing properties anywhere.
 *
 * @param properties The properties of a log entry.
 * @param options Extra keys to mask.
 * @returns Properties safe to write.
 *
 * @example Usage
 * ```ts
 * import { redactProperties } from "@vendor/kit/logging";
 *
 * redactProperties({ user: "ann", password: "hunter2" });
 * // { user: "ann", password: "***" }
 * redactProperties({ pin: "1234" }, { keys: ["pin"] });
 * // { pin: "***" }
 * ```
 */
export function redactProperties(
  properties: Readonly<LogProperties>,
  options: RedactOptions = {},
): LogProperties {
  return new Redactor(options.keys).prepare(properties);
}
