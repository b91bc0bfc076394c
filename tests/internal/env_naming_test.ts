import { test } from "node:test";
import assert from "node:assert/strict";
import {
  keyToVariable,
  normalizePrefix,
  stripPrefix,
  variableToKey,
} from "../../internal/settings/env_naming.ts";

test("normalizePrefix() ends every spelling of a prefix in one underscore, upper case", () => {
  assert.equal(normalizePrefix("APP"), "APP_");
  assert.equal(normalizePrefix("app__"), "APP_");
  assert.equal(normalizePrefix(" shop "), "SHOP_");
  assert.equal(normalizePrefix(""), "");
  assert.equal(normalizePrefix(undefined), "");
});

test("stripPrefix() keeps what follows the prefix, ignoring letter case, or answers undefined", () => {
  assert.equal(stripPrefix("APP_API__BASE_URL", "APP_"), "API__BASE_URL");
  assert.equal(stripPrefix("app_API__BASE_URL", "APP_"), "API__BASE_URL");
  assert.equal(stripPrefix("SHOP_API__BASE_URL", "APP_"), undefined);
  assert.equal(stripPrefix("APP_", "APP_"), undefined);
  assert.equal(stripPrefix("API__BASE_URL", ""), "API__BASE_URL");
});

test("variableToKey() and keyToVariable() map __ to a level and UPPER_SNAKE to camelCase", () => {
  assert.equal(
    variableToKey("DATABASE__CONNECTION_STRING"),
    "database:connectionString",
  );
  assert.equal(variableToKey("CACHE__REDIS__HOST"), "cache:redis:host");
  assert.equal(variableToKey("API____BASE_URL"), undefined);
  assert.equal(
    keyToVariable(["database", "connectionString"]),
    "DATABASE__CONNECTION_STRING",
  );
  assert.equal(keyToVariable(["cache", "redis", "host"]), "CACHE__REDIS__HOST");
});
