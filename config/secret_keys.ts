import { secretKeyWords, secretValueKeyWords } from "../core/mod.ts";

/**
 * The words that mark a key as secret: core's secret rule
 * (`secretKeyWords` and `secretValueKeyWords` of `@vendor/kit/core`), the
 * one logging redaction uses too. A key is secret when one of its segments
 * ends with one of them (ignoring letter case, `_`, `-`, a plural `s` and
 * trailing digits; `pass`, `pwd` and `dsn` only as a whole word), so
 * `auth:jwtSecret`, `cache:redis:password`, `smtp:pass`, `db:pwd`,
 * `aws:secretAccessKey`, `sentry:dsn`, `logging:apiKey`,
 * `database:connectionString` and `auth:apiKeys:0` are all secret, while
 * `tokenExpiry` is not. `session`, `cookie` and `private` count only at the
 * end of a key holding a value or a list (`session` yes, `session:timeout`
 * and `cookie:maxAge` no). Whatever the key, a URL's password
 * (`postgres://app:***@db/app`) and `Bearer` tokens are masked by shape.
 * Secret values print as `***` in `explain()`, `toString()`, `toJSON()`,
 * change events and error messages. Extend the list with the `secretKeys`
 * option of {@linkcode ConfigurationManager}.
 *
 * @example Usage
 * ```ts
 * import { ConfigurationManager, defaultSecretKeys } from "@vendor/kit/config";
 *
 * console.log(defaultSecretKeys.includes("password")); // true
 * const config = new ConfigurationManager({ secretKeys: ["pin", /^salt$/i] });
 * ```
 */
export const defaultSecretKeys: readonly string[] = Object.freeze([
  ...secretKeyWords,
  ...secretValueKeyWords,
]);
