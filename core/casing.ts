// Words are split on any run of characters that are not letters or digits,
// on a lower-case letter or digit followed by an upper-case letter
// (`connectionString` → connection, String) and inside a run of capitals before
// a capitalised word (`XMLHttp` → XML, Http). Digits stay with the word they
// follow (`base64Value` → base64, Value), so every case below round-trips for
// the identifiers configuration keys use.
const WORD_PATTERN =
  /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+\p{N}*|\p{Lu}*\p{N}+|\p{Lo}+/gu;

function splitWords(value: string): string[] {
  return value.match(WORD_PATTERN) ?? [];
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/**
 * Converts text to camelCase (`CONNECTION_STRING` → `connectionString`).
 *
 * @param value Text in any of the supported casings (words separated by
 * spaces, `-`, `_`, `.` or case changes).
 * @returns The camelCase form.
 *
 * @example Usage
 * ```ts
 * import { toCamelCase } from "@vendor/kit/core";
 *
 * toCamelCase("CONNECTION_STRING"); // "connectionString"
 * toCamelCase("page-title"); // "pageTitle"
 * ```
 */
export function toCamelCase(value: string): string {
  const words = splitWords(value);
  let result = "";
  for (let i = 0; i < words.length; i++) {
    result += i === 0 ? words[i].toLowerCase() : capitalize(words[i]);
  }
  return result;
}

/**
 * Converts text to PascalCase (`connection_string` → `ConnectionString`).
 *
 * @param value Text in any of the supported casings.
 * @returns The PascalCase form.
 *
 * @example Usage
 * ```ts
 * import { toPascalCase } from "@vendor/kit/core";
 *
 * toPascalCase("connection_string"); // "ConnectionString"
 * ```
 */
export function toPascalCase(value: string): string {
  return splitWords(value).map(capitalize).join("");
}

/**
 * Converts text to kebab-case (`connectionString` → `connection-string`).
 *
 * @param value Text in any of the supported casings.
 * @returns The kebab-case form.
 *
 * @example Usage
 * ```ts
 * import { toKebabCase } from "@vendor/kit/core";
 *
 * toKebabCase("connectionString"); // "connection-string"
 * ```
 */
export function toKebabCase(value: string): string {
  return splitWords(value).map((word) => word.toLowerCase()).join("-");
}

/**
 * Converts text to snake_case (`connectionString` → `connection_string`).
 *
 * @param value Text in any of the supported casings.
 * @returns The snake_case form.
 *
 * @example Usage
 * ```ts
 * import { toSnakeCase } from "@vendor/kit/core";
 *
 * toSnakeCase("connectionString"); // "connection_string"
 * ```
 */
export function toSnakeCase(value: string): string {
  return splitWords(value).map((word) => word.toLowerCase()).join("_");
}

/**
 * Converts text to UPPER_SNAKE_CASE (`connectionString` → `CONNECTION_STRING`),
 * the naming of environment variables. It round-trips with
 * {@linkcode toCamelCase}.
 *
 * @param value Text in any of the supported casings.
 * @returns The UPPER_SNAKE_CASE form.
 *
 * @example Usage
 * ```ts
 * import { toCamelCase, toUpperSnakeCase } from "@vendor/kit/core";
 *
 * toUpperSnakeCase("connectionString"); // "CONNECTION_STRING"
 * toCamelCase(toUpperSnakeCase("baseUrl")); // "baseUrl"
 * ```
 */
export function toUpperSnakeCase(value: string): string {
  return splitWords(value).map((word) => word.toUpperCase()).join("_");
}
