// What messages, log lines and spans say of a statement: its first line
// (bounded, secrets masked), the whole text bounded for the log and the
// span, and its operation (SELECT, INSERT…). Parameter values are never
// part of any of them: they travel apart from the text.
import { maskSecretText } from "../../core/mod.ts";

/** Longest first line quoted in a message. */
const FIRST_LINE = 200;
/** Longest statement text written to a log line or a span. */
const FULL_TEXT = 2_000;

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}

/**
 * The statement's first line that is not blank, masked and bounded.
 *
 * @param text The statement.
 * @returns The line.
 */
export function firstLine(text: string): string {
  const trimmed = text.trimStart();
  const end = trimmed.indexOf("\n");
  const line = (end < 0 ? trimmed : trimmed.slice(0, end)).trim();
  return maskSecretText(cut(line, FIRST_LINE));
}

/**
 * The statement's text for a log line or a span, masked and bounded.
 *
 * @param text The statement.
 * @returns The text.
 */
export function loggedText(text: string): string {
  return maskSecretText(cut(text.trim(), FULL_TEXT));
}

const OPERATION = /^\s*(?:--[^\n]*\n\s*)*([a-z]+)/i;

/**
 * The statement's operation, its first keyword in capitals (`SELECT`,
 * `INSERT`, `WITH`), or `undefined`.
 *
 * @param text The statement.
 * @returns The keyword.
 */
export function operationOf(text: string): string | undefined {
  const match = OPERATION.exec(text);
  return match === null ? undefined : match[1].toUpperCase();
}
