// Control characters in text that reaches a terminal or a text file (a log
// line, an error message quoting a collector's answer): a line feed as `\n`,
// a carriage return as `\r`, any other C0 character but tab, DEL and the
// 8-bit C1 characters (U+0080 to U+009F, the one-character CSI among them)
// as `\xNN`. What is left cannot move the cursor, erase a line or start an
// escape sequence. An error's stack keeps its frames one a line, each escaped
// (escapedStack): the logging module's text lines and the application host's
// console fallback write it so.

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

/**
 * An error's stack as lines for a text destination: the first line (the
 * error's name and message, which may quote any input and span lines) with
 * every control character escaped, so it stays one line; then the stack
 * frames, one per line, each escaped but for its line break. `head` is
 * `name: message`, written first when the stack does not start with it
 * (browsers other than Chromium leave it out).
 *
 * @param head The error's `name: message`.
 * @param stack The error's stack, if any.
 * @returns The lines, none holding a control character.
 *
 * @example Usage
 * ```ts
 * import { escapedStack } from "./escape_controls.ts";
 *
 * escapedStack("Error: a\nb", "Error: a\nb\n    at f (x.ts:1:1)");
 * // ["Error: a\\nb", "    at f (x.ts:1:1)"]
 * ```
 */
export function escapedStack(
  head: string,
  stack: string | undefined,
): string[] {
  if (stack === undefined) return [escapeControls(head)];
  let first: string;
  let frames: string[];
  if (stack.startsWith(head)) {
    // Whatever follows the message on its last line stays with it.
    const [rest, ...others] = stack.slice(head.length).split("\n");
    first = head + rest;
    frames = others;
  } else {
    const lines = stack.split("\n");
    const frame = lines.findIndex((line) => /^\s*at /.test(line));
    if (frame > 0) {
      first = lines.slice(0, frame).join("\n");
      frames = lines.slice(frame);
    } else {
      first = head;
      frames = lines;
    }
  }
  return [escapeControls(first), ...frames.map(escapeControls)];
}
