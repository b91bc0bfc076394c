// ` (got <value>)` for option and configuration error messages, with secrets
// masked: a value given for a secret option (apiKey, password…) prints as
// `***`, and secret keys inside an object value are masked as every provider
// masks properties. Errors are shown by console.error with their fields, so
// what an error keeps must be masked the same way (see maskValue).
import { SECRET_MASK } from "../../core/mod.ts";
import { Redactor } from "../_redactor.ts";

// Made with the first error message, not at load: building the secret
// matcher compiles Unicode-aware patterns, a millisecond or two of every cold
// start otherwise.
let shared: Redactor | undefined;

function redactor(): Redactor {
  return shared ??= new Redactor();
}

/**
 * The value as an error may keep it: `***` when `name` is a secret key,
 * otherwise the value with secret keys inside it masked.
 */
export function maskValue(value: unknown, name: string): unknown {
  if (value === undefined) return value;
  if (redactor().isSecret(name)) return SECRET_MASK;
  return redactor().prepare({ value }).value;
}

/**
 * ` (got <value>)` for messages; nothing for a missing value. `name` is the
 * option or key the value was given for, when there is one.
 */
export function describeValue(value: unknown, name?: string): string {
  if (value === undefined) return "";
  if (name !== undefined && redactor().isSecret(name)) {
    return ` (got ${SECRET_MASK})`;
  }
  value = redactor().prepare({ value }).value;
  let text: string;
  try {
    text = typeof value === "string"
      ? JSON.stringify(value)
      : typeof value === "function"
      ? "a function"
      : typeof value === "object" && value !== null
      ? JSON.stringify(value) ?? String(value)
      : String(value);
  } catch {
    text = String(value);
  }
  if (text.length > 80) text = text.slice(0, 77) + "...";
  return ` (got ${text})`;
}
