// How an error message quotes a rejected setting: masked, then shortened to
// at most 60 characters, `***` whole for a secret, no control character
// left raw.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_QUOTED_CHARACTERS,
  quoteValue,
} from "../../internal/quote_value.ts";

test("quoteValue() quotes a string as JSON and keeps a short one whole", () => {
  assert.equal(quoteValue("abc"), '"abc"');
  assert.equal(quoteValue('say "hi"\n'), '"say \\"hi\\"\\n"');
});

test("quoteValue() masks a string's secrets before it shortens it", () => {
  assert.equal(
    quoteValue("redis://app:hunter2@cache:6379/0"),
    '"redis://app:***@cache:6379/0"',
  );
  // The password sits past the cut once masked: a cut first would have
  // left "postgres://app:" followed by part of it.
  const long = `postgres://app:${"p".repeat(80)}@db/app`;
  const quoted = quoteValue(long);
  assert.doesNotMatch(quoted, /ppp/);
  assert.equal(quoted, '"postgres://app:***@db/app"');
  // A caller's own masking (the configuration's known secret values).
  assert.equal(
    quoteValue("token is swordfish", {
      mask: (text) => text.replaceAll("swordfish", "***"),
    }),
    '"token is ***"',
  );
});

test("quoteValue() shortens a long value to 60 characters, whatever its length", () => {
  const quoted = quoteValue("9".repeat(100_000));
  assert.equal(MAX_QUOTED_CHARACTERS, 60);
  assert.equal(quoted, `"${"9".repeat(57)}..."`);
  assert.equal(quoted.length, 62);
  assert.equal(quoteValue(10n ** 100n), `${"1".padEnd(57, "0")}...`);
});

test("quoteValue() writes a secret as *** whole, whatever its type", () => {
  assert.equal(quoteValue("hunter2", { secret: true }), "***");
  assert.equal(quoteValue(12345, { secret: true }), "***");
  assert.equal(quoteValue({ a: 1 }, { secret: true }), "***");
});

test("quoteValue() names what is not a string or a number", () => {
  assert.equal(quoteValue(-1), "-1");
  assert.equal(quoteValue(true), "true");
  assert.equal(quoteValue(null), "null");
  assert.equal(quoteValue(undefined), "undefined");
  assert.equal(quoteValue(["a"]), "an array");
  assert.equal(quoteValue({ password: "hunter2" }), "an object");
  // Its source text could be anything, secrets among it.
  assert.equal(quoteValue(() => "hunter2"), "a function");
});

test("quoteValue() leaves no control character raw: DEL and C1 ones escaped too", () => {
  assert.equal(quoteValue("a\x1b[2Jb"), '"a\\u001b[2Jb"');
  assert.equal(quoteValue("a\x7fb\x9bc"), '"a\\x7fb\\x9bc"');
});
