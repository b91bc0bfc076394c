import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import {
  format,
  isNullOrEmpty,
  isNullOrWhiteSpace,
  truncate,
} from "../../core/mod.ts";

test("isNullOrEmpty() is true only for null, undefined and the empty string", () => {
  assert.equal(isNullOrEmpty(null), true);
  assert.equal(isNullOrEmpty(undefined), true);
  assert.equal(isNullOrEmpty(""), true);
  assert.equal(isNullOrEmpty(" "), false);
  assert.equal(isNullOrEmpty("a"), false);
});

test("isNullOrWhiteSpace() is true for blank text of any kind", () => {
  assert.equal(isNullOrWhiteSpace(null), true);
  assert.equal(isNullOrWhiteSpace(undefined), true);
  assert.equal(isNullOrWhiteSpace(""), true);
  assert.equal(isNullOrWhiteSpace(" \t\r\n\u00a0"), true);
  assert.equal(isNullOrWhiteSpace(" a "), false);
});

describe("format()", () => {
  it("fills positional markers in any order and repeated", () => {
    assert.equal(format("{1} {0} {1}", "a", "b"), "b a b");
  });
  it("turns {{ and }} into literal braces", () => {
    assert.equal(format("{{0}} is {0}", "x"), "{0} is x");
    assert.equal(format("{{{0}}}", "x"), "{x}");
  });
  it("leaves markers without an argument in place", () => {
    assert.equal(format("{0} {1}", "only"), "only {1}");
  });
  it("converts arguments with String()", () => {
    assert.equal(
      format("{0}|{1}|{2}|{3}", 1.5, null, undefined, true),
      "1.5|null|undefined|true",
    );
  });
  it("returns text without braces unchanged", () => {
    assert.equal(format("plain"), "plain");
  });
  it("does not treat non-numeric markers as positions", () => {
    assert.equal(format("{name} {0}", "x"), "{name} x");
  });
});

describe("truncate()", () => {
  it("keeps short text as it is", () => {
    assert.equal(truncate("short", 5), "short");
  });
  it("cuts long text and counts the suffix in the length", () => {
    assert.equal(truncate("configuration", 6), "confi…");
    assert.equal(truncate("configuration", 8, "..."), "confi...");
    assert.equal(truncate("configuration", 8, "...").length, 8);
  });
  it("cuts the suffix itself when the limit is smaller", () => {
    assert.equal(truncate("configuration", 2, "..."), "..");
    assert.equal(truncate("configuration", 0), "");
  });
  it("rejects a negative or fractional length", () => {
    assert.throws(() => truncate("x", -1), RangeError);
    assert.throws(() => truncate("x", 1.5), RangeError);
  });
});
