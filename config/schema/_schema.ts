// Schema support: coercion of string values by the schema's types, valibot
// issues turned into failure lines naming key and source, and the set of
// keys a schema knows (for diagnose). Works on valibot's runtime schema
// objects (type, entries, item, wrapped, options, pipe). valibot itself is
// loaded only when a valibot schema is validated (_valibot_deno.ts).
import type * as v from "valibot";
import { isPlainObject } from "../../core/mod.ts";
import type { ConfigurationSchema } from "./configuration_schema.ts";
import { ConfigurationValidationError } from "./configuration_validation_error.ts";
import { isUnsafeSegment } from "../_tree.ts";
import { invalidLogLevelMessage } from "./log_level_rule.ts";
import { loadValibot } from "#config/schema/valibot";
import { quoteValue } from "../../internal/quote_value.ts";

interface SchemaLike {
  readonly kind?: string;
  readonly type?: string;
  readonly entries?: Record<string, SchemaLike>;
  readonly item?: SchemaLike;
  readonly items?: SchemaLike[];
  readonly wrapped?: SchemaLike;
  readonly options?: unknown[];
  readonly value?: SchemaLike;
  readonly rest?: SchemaLike;
  readonly literal?: unknown;
  readonly getter?: (input: unknown) => SchemaLike;
}

const WRAPPERS = new Set([
  "optional",
  "exact_optional",
  "nullable",
  "nullish",
  "undefinedable",
  "non_optional",
  "non_nullable",
  "non_nullish",
]);

const OBJECTS = new Set([
  "object",
  "loose_object",
  "strict_object",
  "object_with_rest",
]);

function unwrap(schema: SchemaLike, input: unknown): SchemaLike {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    if (current.type === "lazy" && typeof current.getter === "function") {
      current = current.getter(input);
    } else if (
      current.type !== undefined && WRAPPERS.has(current.type) &&
      current.wrapped !== undefined
    ) {
      current = current.wrapped;
    } else {
      return current;
    }
  }
  return current;
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * `" 42 "` → 42, `"1e3"` → 1000; `""` → undefined; anything else unchanged,
 * a number too large to be finite (`"1e999"`) among it, so the schema
 * refuses it as it refuses `"Infinity"` rather than pass on `Infinity`.
 */
export function coerceNumber(value: string): unknown {
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (!NUMBER_TEXT.test(trimmed)) return value;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : value;
}

/** `"true"`/`"1"` → true, `"false"`/`"0"` → false; `""` → undefined. */
export function coerceBoolean(value: string): unknown {
  const trimmed = value.trim().toLowerCase();
  if (trimmed === "") return undefined;
  if (trimmed === "true" || trimmed === "1") return true;
  if (trimmed === "false" || trimmed === "0") return false;
  return value;
}

function coerceJson(value: string, opening: string): unknown {
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (!trimmed.startsWith(opening)) return value;
  try {
    const parsed = JSON.parse(trimmed);
    assertSafe(parsed);
    return parsed;
  } catch (error) {
    if (error instanceof UnsafeJsonError) throw error;
    return value;
  }
}

/** Thrown when JSON text inside a value uses an unsafe property name. */
export class UnsafeJsonError extends Error {
  constructor(readonly segment: string) {
    super(`unsafe property name ${segment}`);
  }
}

function assertSafe(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(assertSafe);
  } else if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      if (isUnsafeSegment(key)) throw new UnsafeJsonError(key);
      assertSafe((value as Record<string, unknown>)[key]);
    }
  }
}

/**
 * Returns a copy of `input` with strings converted to what the schema
 * expects, and object keys matched to the schema's spelling ignoring case.
 * Keys the schema does not describe are kept as they are.
 */
export function coerce(input: unknown, schema: unknown): unknown {
  if (input === undefined) return undefined;
  const s = unwrap(schema as SchemaLike, input);
  const type = s.type;
  switch (type) {
    case "number":
      return typeof input === "string" ? coerceNumber(input) : input;
    case "boolean":
      return typeof input === "string" ? coerceBoolean(input) : input;
    case "picklist":
    case "literal":
    case "enum": {
      if (typeof input !== "string") return input;
      const options = type === "literal"
        ? [s.literal]
        : type === "enum"
        ? Object.values((s as { enum?: Record<string, unknown> }).enum ?? {})
        : s.options ?? [];
      if (options.includes(input)) return input;
      if (options.every((option) => typeof option === "number")) {
        return coerceNumber(input);
      }
      if (options.every((option) => typeof option === "boolean")) {
        return coerceBoolean(input);
      }
      return input;
    }
    case "array": {
      const value = typeof input === "string" ? coerceJson(input, "[") : input;
      if (!Array.isArray(value) || s.item === undefined) return value;
      return value.map((item) => coerce(item, s.item));
    }
    case "tuple":
    case "loose_tuple":
    case "strict_tuple": {
      const value = typeof input === "string" ? coerceJson(input, "[") : input;
      if (!Array.isArray(value) || s.items === undefined) return value;
      return value.map((item, i) =>
        i < s.items!.length ? coerce(item, s.items![i]) : item
      );
    }
    case "record": {
      const value = typeof input === "string" ? coerceJson(input, "{") : input;
      if (!isPlainObject(value) || s.value === undefined) return value;
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        result[key] = coerce(item, s.value);
      }
      return result;
    }
    case "union":
    case "variant": {
      const options = (s.options ?? []) as SchemaLike[];
      const { is } = loadValibot();
      for (const option of options) {
        const candidate = coerce(input, option);
        if (is(option as v.GenericSchema, candidate)) return candidate;
      }
      return input;
    }
    default: {
      if (type === undefined || !OBJECTS.has(type) || s.entries === undefined) {
        return input;
      }
      const value = typeof input === "string" ? coerceJson(input, "{") : input;
      if (!isPlainObject(value)) return value;
      const result: Record<string, unknown> = {};
      const used = new Set<string>();
      const keys = Object.keys(value);
      for (const [entry, entrySchema] of Object.entries(s.entries)) {
        const lower = entry.toLowerCase();
        const actual = Object.hasOwn(value, entry)
          ? entry
          : keys.find((key) => !used.has(key) && key.toLowerCase() === lower);
        if (actual === undefined) continue;
        used.add(actual);
        const coerced = coerce(value[actual], entrySchema);
        if (coerced !== undefined) result[entry] = coerced;
      }
      for (const key of keys) {
        if (used.has(key)) continue;
        result[key] = s.rest === undefined
          ? value[key]
          : coerce(value[key], s.rest);
      }
      return result;
    }
  }
}

/**
 * The schema at a path, optional and similar wrappers removed; `undefined`
 * when the path leads nowhere certain (an unknown key, a union).
 */
function schemaAt(
  schema: unknown,
  segments: readonly string[],
): SchemaLike | undefined {
  let current = unwrap(schema as SchemaLike, undefined);
  for (const segment of segments) {
    const type = current.type;
    if (type !== undefined && OBJECTS.has(type) && current.entries) {
      const lower = segment.toLowerCase();
      const match = Object.keys(current.entries).find((key) =>
        key.toLowerCase() === lower
      );
      if (match === undefined) return undefined;
      current = unwrap(current.entries[match], undefined);
    } else if (type === "array" && current.item !== undefined) {
      current = unwrap(current.item, undefined);
    } else return undefined;
  }
  return current;
}

/**
 * The type of the schema at a path (`"string"`, `"object"`…), optional and
 * similar wrappers removed; `undefined` when the path leads nowhere certain
 * (an unknown key, a union).
 */
export function schemaTypeAt(
  schema: unknown,
  segments: readonly string[],
): string | undefined {
  return schemaAt(schema, segments)?.type;
}

// The wrappers valibot lets a missing key through (object schemas report
// every other missing entry that has no fallback).
const MAY_BE_MISSING = new Set(["optional", "exact_optional", "nullish"]);

// Deep enough for any real configuration; stops a recursive lazy schema.
const MAX_REQUIRED_DEPTH = 16;

/**
 * The keys (as segment lists, relative to `object`) valibot would report
 * missing in an object schema given no value: each entry that may not be
 * left out, and inside a required object its own required keys in place
 * of it. An object with no required key of its own is listed itself, since
 * it must still be present.
 */
function requiredKeysOf(object: SchemaLike, depth = 0): string[][] {
  const required: string[][] = [];
  for (const [name, entry] of Object.entries(object.entries ?? {})) {
    if (
      (entry.type !== undefined && MAY_BE_MISSING.has(entry.type)) ||
      (entry as { fallback?: unknown }).fallback !== undefined
    ) continue;
    const inner = unwrap(entry, undefined);
    const nested = inner.type !== undefined && OBJECTS.has(inner.type) &&
        inner.entries !== undefined && depth < MAX_REQUIRED_DEPTH
      ? requiredKeysOf(inner, depth + 1)
      : [];
    if (nested.length === 0) required.push([name]);
    else for (const keys of nested) required.push([name, ...keys]);
  }
  return required;
}

/**
 * Tells whether the schema describes the key (a leaf or a branch). Records,
 * `unknown` and `any` accept everything below them.
 */
export function schemaKnows(
  schema: unknown,
  segments: readonly string[],
): boolean {
  let current = unwrap(schema as SchemaLike, undefined);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const type = current.type;
    if (type === "record" || type === "unknown" || type === "any") return true;
    if (type === "union" || type === "variant") {
      return ((current.options ?? []) as SchemaLike[]).some((option) =>
        schemaKnows(option, segments.slice(i))
      );
    }
    if (type !== undefined && OBJECTS.has(type) && current.entries) {
      const lower = segment.toLowerCase();
      const match = Object.keys(current.entries).find((key) =>
        key.toLowerCase() === lower
      );
      if (match === undefined) {
        if (current.rest !== undefined || type === "loose_object") return true;
        return false;
      }
      current = unwrap(current.entries[match], undefined);
      continue;
    }
    if (
      type === "array" && current.item !== undefined && /^\d+$/.test(segment)
    ) {
      current = unwrap(current.item, undefined);
      continue;
    }
    if (type?.endsWith("tuple") && current.items && /^\d+$/.test(segment)) {
      const item = current.items[Number(segment)];
      if (item === undefined) return false;
      current = unwrap(item, undefined);
      continue;
    }
    return false;
  }
  return true;
}

/** How a failure line is worded, given the failing key. */
export interface IssueContext {
  /** The source label that supplied the key, or `undefined` when none did. */
  sourceOf(key: string): string | undefined;
  isSecret(key: string): boolean;
  /** Masks the secrets a text carries (by shape, and known secret values). */
  mask(text: string): string;
  /** Where a missing value could be set (`set DB_X or APP_X, or …`). */
  whereToSet?(key: string): string | undefined;
}

// Schema types of containers: a missing section is named alone, since one
// variable rarely sets a whole object.
const CONTAINERS = new Set([
  "object",
  "loose_object",
  "strict_object",
  "object_with_rest",
  "array",
  "tuple",
  "loose_tuple",
  "strict_tuple",
  "tuple_with_rest",
  "record",
]);

// A rejected value as Kit quotes it everywhere: `***` for a secret,
// otherwise masked, then cut to 60 characters.
function describeReceived(
  input: unknown,
  secret: boolean,
  mask: (text: string) => string,
): string {
  return quoteValue(input, { secret, mask });
}

const ARTICLES: Record<string, string> = {
  number: "a number",
  string: "a string",
  boolean: "a boolean",
  object: "an object",
  loose_object: "an object",
  strict_object: "an object",
  object_with_rest: "an object",
  array: "an array",
  record: "an object",
  integer: "an integer",
};

function problemOf(
  issue: v.BaseIssue<unknown>,
  secret: boolean,
  mask: (text: string) => string,
): string {
  const requirement = (issue as { requirement?: unknown }).requirement;
  const received = describeReceived(issue.input, secret, mask);
  switch (issue.type) {
    case "min_value":
      return `must be at least ${String(requirement)}`;
    case "max_value":
      return `must be at most ${String(requirement)}`;
    case "min_length":
      return Array.isArray(issue.input)
        ? `must have at least ${String(requirement)} item${
          requirement === 1 ? "" : "s"
        }`
        : `must be at least ${String(requirement)} characters long`;
    case "max_length":
      return Array.isArray(issue.input)
        ? `must have at most ${String(requirement)} items`
        : `must be at most ${String(requirement)} characters long`;
    case "url":
      return `must be a URL, got ${received}`;
    case "email":
      return `must be an email address, got ${received}`;
    case "integer":
      return `must be an integer, got ${received}`;
    case "picklist":
    case "literal":
    case "enum": {
      const options = (issue.expected ?? "the allowed values")
        .replace(/^\((.*)\)$/, "$1")
        .split(" | ")
        .join(", ");
      return `must be one of ${options}, got ${received}`;
    }
    case "strict_object":
      if (issue.kind === "schema" && issue.expected === "never") {
        return "is not allowed here";
      }
  }
  if (issue.kind === "schema") {
    if (issue.input === undefined) return "is required";
    const expected = ARTICLES[issue.type] ?? issue.expected ?? issue.type;
    return `must be ${expected}, got ${received}`;
  }
  return secret ? `is invalid (${issue.type})` : mask(issue.message);
}

const LOG_LEVEL_MESSAGE = "Invalid log level: ";

/** Turns valibot issues into failure lines naming key and source. */
export function formatIssues(
  issues: readonly v.BaseIssue<unknown>[],
  context: IssueContext,
  keyPrefix: string,
  schema?: unknown,
): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const segments = (issue.path ?? []).map((item) =>
      String((item as { key?: unknown }).key)
    );
    const key = [keyPrefix, ...segments].filter((part) => part !== "").join(
      ":",
    );
    const secret = key !== "" && context.isSecret(key);
    const source = key === "" ? undefined : context.sourceOf(key);
    if (issue.message.startsWith(LOG_LEVEL_MESSAGE)) {
      // Kit's one log level message, the same everywhere.
      lines.push(
        context.mask(invalidLogLevelMessage(issue.input, source)),
      );
      continue;
    }
    const problem = problemOf(issue, secret, (text) => context.mask(text));
    const unset = source === undefined && issue.input === undefined &&
      key !== "" && schema !== undefined;
    if (unset && issue.kind === "schema" && problem === "is required") {
      lines.push(...missingLines(schema, segments, key, context));
      continue;
    }
    const place = unset &&
        !CONTAINERS.has(schemaTypeAt(schema, segments) ?? "object")
      ? context.whereToSet?.(key)
      : undefined;
    const origin = source === undefined
      ? issue.input === undefined
        ? ` (not set by any source${place === undefined ? "" : `; ${place}`})`
        : ""
      : ` (from ${source})`;
    lines.push(`${key === "" ? "(root)" : key}: ${problem}${origin}`);
  }
  return lines;
}

/**
 * The lines of a key no source set: the key with where to set it; for a
 * missing section, each required key inside it the same way, since a
 * section is set through its keys and naming it alone leaves the reader
 * to find them in the schema. An array or a record is named alone (no
 * one variable sets it).
 */
function missingLines(
  schema: unknown,
  segments: readonly string[],
  key: string,
  context: IssueContext,
): string[] {
  const at = schemaAt(schema, segments);
  const inside = at?.type !== undefined && OBJECTS.has(at.type) &&
      at.entries !== undefined
    ? requiredKeysOf(at)
    : [];
  const missing = inside.length === 0 ? [[]] : inside;
  return missing.map((rest) => {
    const type = schemaTypeAt(schema, [...segments, ...rest]);
    const path = [key, ...rest].join(":");
    const place = CONTAINERS.has(type ?? "object")
      ? undefined
      : context.whereToSet?.(path);
    return `${path}: is required (not set by any source${
      place === undefined ? "" : `; ${place}`
    })`;
  });
}

/** Tells whether a schema is a (synchronous) valibot schema. */
export function isValibotSchema(schema: unknown): schema is v.GenericSchema {
  const candidate = schema as {
    kind?: unknown;
    async?: unknown;
    "~run"?: unknown;
  } | null;
  return candidate !== null && typeof candidate === "object" &&
    candidate.kind === "schema" && candidate.async === false &&
    typeof candidate["~run"] === "function";
}

/**
 * Coerces (valibot schemas only) and validates `input`.
 *
 * @throws {ConfigurationValidationError} with every failure.
 * @throws {UnsafeJsonError} when JSON text inside a value uses `__proto__`…
 */
export function validateAgainst(
  schema: ConfigurationSchema,
  input: unknown,
  context: IssueContext,
  section: string,
): { coerced: unknown; output: unknown } {
  if (isValibotSchema(schema)) {
    const coerced = coerce(input, schema);
    const result = loadValibot().safeParse(schema, coerced);
    if (!result.success) {
      throw new ConfigurationValidationError(
        formatIssues(result.issues, context, section, schema),
      );
    }
    return { coerced, output: result.output };
  }
  const standard = (schema as Partial<ConfigurationSchema>)?.["~standard"];
  if (standard === undefined || typeof standard.validate !== "function") {
    throw new TypeError(
      "The schema must be a valibot schema or implement Standard Schema (~standard)",
    );
  }
  const result = standard.validate(input);
  if (result instanceof Promise) {
    result.catch(() => {});
    throw new TypeError(
      "Asynchronous schemas are not supported for configuration",
    );
  }
  if (result.issues === undefined) {
    return { coerced: input, output: result.value };
  }
  const lines = result.issues.map((issue) => {
    const segments = (issue.path ?? []).map((item) =>
      String(typeof item === "object" && item !== null ? item.key : item)
    );
    const key = [section, ...segments].filter((part) => part !== "").join(":");
    const secret = key !== "" && context.isSecret(key);
    const source = key === "" ? undefined : context.sourceOf(key);
    const origin = source === undefined ? "" : ` (from ${source})`;
    return `${key === "" ? "(root)" : key}: ${
      secret ? "is invalid" : context.mask(issue.message)
    }${origin}`;
  });
  throw new ConfigurationValidationError(lines);
}
