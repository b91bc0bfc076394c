// Turns the text of a JSON file or JSON URL into the root entry of a layer,
// with errors that name the absolute path (or URL), the line and the column.
import { isPlainObject } from "../../core/mod.ts";
import type {
  ConfigurationEntry,
  ConfigurationValue,
} from "./configuration_provider.ts";
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { parseConfigurationJson } from "../../internal/json_syntax.ts";
import { findTooDeep, MAX_DEPTH, shortenPath } from "../_limits.ts";

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Parses JSON configuration text into one root entry.
 *
 * @throws {ConfigurationSourceError} when the text is not valid JSON, not
 * an object, or nests deeper than `MAX_DEPTH` levels.
 */
export function parseJsonSource(
  text: string,
  details: { label: string; location: string; what: "file" | "URL" },
): ConfigurationEntry[] {
  const { label, location, what } = details;
  const result = parseConfigurationJson(text);
  const path = what === "file" ? location : undefined;
  if (!result.ok) {
    const { description, line, column } = result.problem;
    throw new ConfigurationSourceError(
      `Configuration ${what} ${location} is not valid JSON: ${description} at line ${line}, column ${column}`,
      { source: label, path, line, column },
    );
  }
  if (!isPlainObject(result.value)) {
    throw new ConfigurationSourceError(
      `Configuration ${what} ${location} must contain a JSON object at the top level, not ${
        describeType(result.value)
      }`,
      { source: label, path },
    );
  }
  const tooDeep = findTooDeep(result.value);
  if (tooDeep !== undefined) {
    throw new ConfigurationSourceError(
      `Configuration ${what} ${location} nests deeper than ${MAX_DEPTH} levels at "${
        shortenPath(tooDeep)
      }"; flatten that part of the configuration`,
      { source: label, path },
    );
  }
  return [{
    key: "",
    value: result.value as ConfigurationValue,
    source: label,
  }];
}
