// Control characters in text that reaches a terminal or a text file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { escapeControls } from "../../internal/escape_controls.ts";

test("escapeControls() writes line breaks as \\n and \\r, other controls as \\xNN, and keeps tabs", () => {
  assert.equal(escapeControls("a\nb\rc"), "a\\nb\\rc");
  assert.equal(
    escapeControls("\x1b[2J\x00\x7f\x9b"),
    "\\x1b[2J\\x00\\x7f\\x9b",
  );
  assert.equal(escapeControls("tab\there"), "tab\there");
  const plain = "nothing to escape: é ü 漢";
  assert.equal(escapeControls(plain), plain);
});
