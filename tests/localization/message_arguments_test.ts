import { test } from "node:test";
import assert from "node:assert/strict";
import {
  flattenLocalizationResource,
  LocalizationMessageError,
  LocalizationResourceError,
  messageArguments,
} from "../../localization/mod.ts";

test("messageArguments() names an ICU message's arguments with their kinds, references left out", () => {
  assert.deepEqual(
    messageArguments(
      "{count, plural, one {# item for {name}} other {# items}} {@brand} {when, date} {g, select, f {her} other {their}}",
      "en",
      "cart.items",
    ),
    new Map([
      ["count", "number"],
      ["name", "value"],
      ["when", "date"],
      ["g", "string"],
    ]),
  );
  // A name used as a value and as a plural is a number.
  assert.equal(
    messageArguments("{n} {n, plural, other {#}}", "en", "k")?.get("n"),
    "number",
  );
});

test("messageArguments() answers undefined for a text Kit does not read as ICU", () => {
  assert.equal(messageArguments("Hello {0}", "en", "greeting"), undefined);
  assert.equal(messageArguments("Plain {@brand}", "en", "k"), undefined);
});

test("messageArguments() throws LocalizationMessageError naming the culture and key of a broken message", () => {
  assert.throws(
    () => messageArguments("{count, plural, one {#}}", "fr", "cart.items"),
    (error: unknown) =>
      error instanceof LocalizationMessageError &&
      error.culture === "fr" && error.key === "cart.items",
  );
});

test("flattenLocalizationResource() turns groups into dotted keys and refuses what providers refuse", () => {
  assert.deepEqual(
    flattenLocalizationResource({ home: { title: "Welcome" }, ok: "OK" }, "en"),
    new Map([["ok", "OK"], ["home.title", "Welcome"]]),
  );
  assert.throws(
    () => flattenLocalizationResource({ a: 1 }, "en", "/app/en.json"),
    LocalizationResourceError,
  );
  assert.throws(
    () => flattenLocalizationResource({ "a.b": "x", a: { b: "y" } }, "en"),
    LocalizationResourceError,
  );
});
