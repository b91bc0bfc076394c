// Control characters in text that reaches a terminal or a text file (a log
// line, an error message quoting a collector's answer): a line feed as `\n`,
// a carriage return as `\r`, any other C0 character but tab, DEL and the
// 8-bit C1 characters (U+0080 to U+009F, the one-character CSI among them)
// as `\xNN`. What is left cannot move the cursor, erase a line or start an
// escape sequence.

// deno-lint-ignore no-control-regex
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
// deno-lint-ignore no-control-regex
const HAS_CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;

function escapeOne(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 10) return "\\n";
  if (code === 13) return "\\r";
  return "\\x" + code.toString(16).padStart(2, "0");
}

/**
 * The text with every control character escaped, line breaks included.
 *
 * @param text Any text.
 * @returns The text, escaped where it holds control characters.
 *
 * @example Usage
 * ```ts
 * import { escapeControls } from "./escape_controls.ts";
 *
 * escapeControls("a\nb\x1b[2J"); // "a\\nb\\x1b[2J"
 * ```
 */
export function escapeControls(text: string): string {
  return HAS_CONTROL.test(text) ? text.replace(CONTROLS, escapeOne) : text;
}
