// Control characters in text that reaches a terminal or a text file. The
// "simple" format's message goes through LogTape's sanitizer; everything
// else Kit adds to a line (properties, an error's message, stack and cause)
// goes through these functions, which escape the same characters the same
// way: a line feed as `\n`, a carriage return as `\r`, ESC as `\x1b`, any
// other C0 character (but tab), DEL and the 8-bit C1 characters (U+0080 to
// U+009F, among them the one-character CSI) as `\xNN`. What is left cannot
// move the cursor, erase a line or start an escape sequence. The analytics
// package escapes collectors' answers by the same function.
import { escapeControls, escapedStack } from "../internal/escape_controls.ts";

export { escapeControls, escapedStack };

// JSON.stringify escapes C0 characters itself but leaves DEL and C1 raw.
const JSON_RAW = /[\x7f-\x9f]/g;
const HAS_JSON_RAW = /[\x7f-\x9f]/;

/**
 * JSON text with DEL and the C1 characters written as `\u00NN` too, so a
 * JSON line holds no control character at all and parses to the same value.
 */
export function escapeJsonControls(json: string): string {
  return HAS_JSON_RAW.test(json)
    ? json.replace(
      JSON_RAW,
      (char) => "\\u00" + char.charCodeAt(0).toString(16),
    )
    : json;
}
