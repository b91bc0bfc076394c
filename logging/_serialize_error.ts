// An error as every built-in format writes it (console and file, "simple"
// and "json"; remote Kit JSON and OTLP): name, message, stack, cause and an
// AggregateError's errors, secrets masked, and bounded. A real error stays
// far inside the bounds; one that holds a request body in its message, or
// collects 100,000 failures, would otherwise be written whole and hold the
// event loop while it is (a 20 MB message took 0.2 to 2 s per entry, by
// format). Each cut says how much it left out, in the text itself
// ("… [19,983,616 more characters]") or, for a list of errors, in
// `moreErrors` ("… and 99,990 more errors" in the "simple" format).
import { maskSecretText } from "../core/mod.ts";

/** The most characters of an error's message (or of a string cause) written. */
export const MAX_ERROR_MESSAGE = 16_384;
/** The most characters of an error's stack frames (after its first line) written. */
export const MAX_ERROR_FRAMES = 32_768;
/** The most errors of an `AggregateError` (its `errors`) written. */
export const MAX_NESTED_ERRORS = 10;
/**
 * The most errors of one entry written in full (with their stacks, causes
 * and nested errors): its error, with its causes and nested errors, then the
 * errors among its properties. The others are written by name and message.
 */
export const MAX_ERRORS_PER_ENTRY = 20;
/** How many levels of causes and nested errors are followed. */
const MAX_ERROR_DEPTH = 3;
// Text is masked a little past the bound before it is cut, so a secret that
// straddles the cut is still recognised by its shape and masked.
const MASK_MARGIN = 1_024;

/** The JSON shape of an error. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  cause?: unknown;
  /** The first errors of an `AggregateError`. */
  errors?: unknown[];
  /** How many of its errors were left out. */
  moreErrors?: number;
}

/** How many more errors an entry writes in full; shared by its parts. */
export interface ErrorBudget {
  left: number;
}

/**
 * A new budget for one entry.
 *
 * @returns {@linkcode MAX_ERRORS_PER_ENTRY} errors to write in full.
 */
export function entryErrorBudget(): ErrorBudget {
  return { left: MAX_ERRORS_PER_ENTRY };
}

/** `19999000` → `"19,999,000"`, the same in every locale. */
export function groupDigits(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * The text masked (`maskSecretText`) and cut to `max` characters, followed
 * by `… [N more characters]` when it was longer.
 */
export function boundedText(text: string, max: number): string {
  if (text.length <= max) return maskSecretText(text);
  const window = maskSecretText(text.slice(0, max + MASK_MARGIN));
  // What lies past the masked window is never read, only counted.
  const rest = Math.max(0, text.length - max - MASK_MARGIN);
  const more = Math.max(0, window.length - max) + rest;
  return more === 0
    ? window
    : `${window.slice(0, max)}… [${groupDigits(more)} more characters]`;
}

// Whether `text` holds `part` at `offset`. A part megabytes long is compared
// at its two ends only (a full comparison of a 20 MB message took 7 ms):
// the stack V8 builds repeats the message whole, and a cut in the wrong
// place would still be bounded.
function holdsAt(text: string, part: string, offset: number): boolean {
  const probe = MAX_ERROR_MESSAGE + MASK_MARGIN;
  if (part.length <= 2 * probe) return text.startsWith(part, offset);
  return text.length >= offset + part.length &&
    text.startsWith(part.slice(0, probe), offset) &&
    text.startsWith(part.slice(-probe), offset + part.length - probe);
}

// The stack with its first line rebuilt from the bounded message (V8 starts
// it with "Name: message", the whole message again), then its frames cut.
function boundedStack(
  stack: string,
  name: string,
  rawMessage: string,
  message: string,
): string {
  const start = name.length + 2;
  if (
    stack.startsWith(name) && stack.startsWith(": ", name.length) &&
    holdsAt(stack, rawMessage, start)
  ) {
    const frames = stack.slice(start + rawMessage.length);
    return `${name}: ${message}${boundedText(frames, MAX_ERROR_FRAMES)}`;
  }
  // Another engine's stack (frames only), or one set by hand.
  return boundedText(stack, MAX_ERROR_MESSAGE + MAX_ERROR_FRAMES);
}

function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "[unprintable]";
  }
}

// What a cause or a nested error that is not an Error becomes: a string
// masked and bounded, anything else as it is.
function plainItem(value: unknown): unknown {
  return typeof value === "string"
    ? boundedText(value, MAX_ERROR_MESSAGE)
    : value;
}

function nestedErrors(error: Error): readonly unknown[] | undefined {
  if (!(error instanceof AggregateError)) return undefined;
  const errors: unknown = error.errors;
  return Array.isArray(errors) && errors.length > 0 ? errors : undefined;
}

/**
 * Turns an error into plain data: its name, its message and stack masked and
 * bounded, its cause and an `AggregateError`'s first errors likewise, a few
 * levels deep. Once the entry's budget is spent, an error is written by its
 * name and message only.
 *
 * @param error The error.
 * @param budget The entry's budget, shared with its other errors.
 * @param depth How deep in the error's causes and nested errors this is.
 * @returns The error as JSON can carry it.
 */
export function serializeError(
  error: Error,
  budget: ErrorBudget = entryErrorBudget(),
  depth = 0,
): SerializedError {
  const name = textOf(error.name);
  const rawMessage = textOf(error.message);
  const message = boundedText(rawMessage, MAX_ERROR_MESSAGE);
  const out: SerializedError = { name, message };
  const nested = nestedErrors(error);
  if (budget.left <= 0) {
    if (nested !== undefined) out.moreErrors = nested.length;
    return out;
  }
  budget.left--;
  const stack: unknown = error.stack;
  if (stack !== undefined) {
    out.stack = boundedStack(textOf(stack), name, rawMessage, message);
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined && depth < MAX_ERROR_DEPTH) {
    out.cause = cause instanceof Error
      ? serializeError(cause, budget, depth + 1)
      : plainItem(cause);
  }
  if (nested !== undefined) {
    const shown = depth < MAX_ERROR_DEPTH
      ? Math.min(nested.length, MAX_NESTED_ERRORS)
      : 0;
    if (shown > 0) {
      out.errors = [];
      for (let i = 0; i < shown; i++) {
        const item = nested[i];
        out.errors.push(
          item instanceof Error
            ? serializeError(item, budget, depth + 1)
            : plainItem(item),
        );
      }
    }
    if (nested.length > shown) out.moreErrors = nested.length - shown;
  }
  return out;
}
