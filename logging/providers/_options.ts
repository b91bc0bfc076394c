// Validation of provider options, shared by the provider constructors (values
// from code) and LoggerManager.fromConfiguration (values from configuration
// files and environment variables, where numbers and booleans may arrive as
// strings: `coerce` converts those).
import type { Clock } from "../../core/mod.ts";
import { pageAddress } from "../../internal/page_address.ts";
import { LogProviderOptionError } from "./log_provider_option_error.ts";
import { type LogLevel, parseLogLevel } from "../log_level.ts";

/** How one option is checked. */
export type Rule =
  | { kind: "boolean" }
  | { kind: "integer"; min: number }
  | { kind: "string" }
  | { kind: "url" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "level" }
  | { kind: "keys" }
  | { kind: "function" }
  | { kind: "object" }
  | { kind: "clock" };

/** Options of one provider: name → rule. */
export type Rules = Readonly<Record<string, Rule>>;

/**
 * Checks `options` against `rules` and returns a copy with coerced values.
 *
 * @throws {LogProviderOptionError} For the first unknown or bad option.
 */
export function checkOptions(
  provider: string,
  rules: Rules,
  options: unknown,
  required: readonly string[],
  coerce = false,
): Record<string, unknown> {
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new LogProviderOptionError(
      provider,
      "options",
      "must be an object",
      options,
    );
  }
  const out: Record<string, unknown> = {};
  const source = options as Record<string, unknown>;
  for (const name of Object.keys(source)) {
    const rule = rules[name];
    if (rule === undefined) {
      throw new LogProviderOptionError(
        provider,
        name,
        `is not an option (allowed: ${Object.keys(rules).join(", ")})`,
        source[name],
      );
    }
    if (source[name] === undefined) continue;
    out[name] = checkValue(provider, name, rule, source[name], coerce);
  }
  for (const name of required) {
    if (out[name] === undefined) {
      throw new LogProviderOptionError(
        provider,
        name,
        "is required",
        undefined,
      );
    }
  }
  return out;
}

function checkValue(
  provider: string,
  name: string,
  rule: Rule,
  value: unknown,
  coerce: boolean,
): unknown {
  const fail = (problem: string): never => {
    throw new LogProviderOptionError(provider, name, problem, value);
  };
  switch (rule.kind) {
    case "boolean": {
      if (typeof value === "boolean") return value;
      if (coerce && typeof value === "string") {
        const text = value.trim().toLowerCase();
        if (text === "true") return true;
        if (text === "false") return false;
      }
      return fail("must be true or false");
    }
    case "integer": {
      let number = value;
      if (coerce && typeof value === "string" && value.trim() !== "") {
        number = Number(value);
      }
      if (typeof number !== "number" || !Number.isSafeInteger(number)) {
        return fail(integerProblem(rule.min));
      }
      if (number < rule.min) return fail(integerProblem(rule.min));
      return number;
    }
    case "string":
      if (typeof value !== "string" || value.trim() === "") {
        return fail("must be a non-empty string");
      }
      return value;
    case "url": {
      if (typeof value !== "string" && !(value instanceof URL)) {
        return fail("must be an http(s) URL");
      }
      // In a browser a path relative to the page (`/logs`) is resolved
      // against it, as CustomAnalyticsProvider and HttpClient do; elsewhere
      // there is no page and the address must be absolute.
      const page = pageAddress();
      let url: URL;
      try {
        url = new URL(String(value), page);
      } catch {
        return fail("must be an http(s) URL");
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return fail("must be an http(s) URL");
      }
      return url.href;
    }
    case "enum":
      if (typeof value !== "string" || !rule.values.includes(value)) {
        return fail(`must be one of ${rule.values.join(", ")}`);
      }
      return value;
    case "level":
      try {
        return parseLogLevel(value as string | LogLevel);
      } catch {
        return fail("must be one of debug, info, warning, error");
      }
    case "keys": {
      const list = coerce && typeof value === "string"
        ? value.split(",").map((item) => item.trim()).filter((item) =>
          item !== ""
        )
        : value;
      if (
        !Array.isArray(list) ||
        !list.every((item) =>
          typeof item === "string" || item instanceof RegExp
        )
      ) {
        return fail("must be a list of strings or regular expressions");
      }
      return list;
    }
    case "function":
      if (typeof value !== "function") return fail("must be a function");
      return value;
    case "object":
      if (typeof value !== "object" || value === null) {
        return fail("must be an object");
      }
      return value;
    case "clock":
      if (
        typeof value !== "object" || value === null ||
        typeof (value as Clock).now !== "function" ||
        typeof (value as Clock).setTimeout !== "function" ||
        typeof (value as Clock).clearTimeout !== "function"
      ) {
        return fail("must be a Clock (now, setTimeout, clearTimeout)");
      }
      return value;
  }
}

function integerProblem(min: number): string {
  return min === 1
    ? "must be a positive integer"
    : min === 0
    ? "must be a non-negative integer"
    : `must be an integer of at least ${min}`;
}
