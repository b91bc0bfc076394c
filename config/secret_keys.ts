/**
 * The words that mark a key as secret: a key is secret when one of its
 * segments ends with one of them (ignoring letter case, `_`, `-` and a
 * plural `s`), so `auth:jwtSecret`, `cache:redis:password`,
 * `logging:apiKey`, `database:connectionString` and `auth:apiKeys:0` are all
 * secret. Their values print as `***` in `explain()`, `toString()`,
 * `toJSON()`, change events and error messages. Extend the list with the
 * `secretKeys` option of {@linkcode ConfigurationManager}.
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
  "password",
  "secret",
  "apiKey",
  "token",
  "connectionString",
  "secretKey",
  "privateKey",
]);
