import { test } from "node:test";
import assert from "node:assert/strict";
import {
  toCamelCase,
  toKebabCase,
  toPascalCase,
  toSnakeCase,
  toUpperSnakeCase,
} from "../../core/mod.ts";

test("toCamelCase() converts every supported casing", () => {
  assert.equal(toCamelCase("CONNECTION_STRING"), "connectionString");
  assert.equal(toCamelCase("connection_string"), "connectionString");
  assert.equal(toCamelCase("connection-string"), "connectionString");
  assert.equal(toCamelCase("Connection String"), "connectionString");
  assert.equal(toCamelCase("ConnectionString"), "connectionString");
  assert.equal(toCamelCase("connectionString"), "connectionString");
  assert.equal(toCamelCase("XMLHttpRequest"), "xmlHttpRequest");
  assert.equal(toCamelCase("page-title"), "pageTitle");
  assert.equal(toCamelCase(""), "");
});

test("toPascalCase(), toKebabCase() and toSnakeCase() split words the same way", () => {
  assert.equal(toPascalCase("connection_string"), "ConnectionString");
  assert.equal(toKebabCase("connectionString"), "connection-string");
  assert.equal(toSnakeCase("connectionString"), "connection_string");
  assert.equal(toKebabCase("XMLHttpRequest"), "xml-http-request");
  assert.equal(toSnakeCase("base64Value"), "base64_value");
});

test("toUpperSnakeCase() gives the UPPER_SNAKE_CASE parts of environment variable names", () => {
  assert.equal(toUpperSnakeCase("connectionString"), "CONNECTION_STRING");
  assert.equal(toUpperSnakeCase("baseUrl"), "BASE_URL");
  assert.equal(toUpperSnakeCase("level"), "LEVEL");
  assert.equal(toUpperSnakeCase("retryAttempts"), "RETRY_ATTEMPTS");
});

test("camelCase and UPPER_SNAKE_CASE round-trip both ways", () => {
  const keys = [
    "connectionString",
    "baseUrl",
    "timeout",
    "poolSize",
    "enableLogging",
    "retryAttempts",
    "maxFileUploadSize",
    "enableInternationalization",
    "api2Key",
    "base64Value",
  ];
  for (const key of keys) {
    assert.equal(toCamelCase(toUpperSnakeCase(key)), key, key);
  }
  const variables = ["CONNECTION_STRING", "BASE_URL", "POOL_SIZE", "LEVEL"];
  for (const variable of variables) {
    assert.equal(toUpperSnakeCase(toCamelCase(variable)), variable, variable);
  }
});

test("case conversion keeps non-ASCII letters", () => {
  assert.equal(toCamelCase("événement_créé"), "événementCréé");
  assert.equal(toKebabCase("ÉtatCivil"), "état-civil");
});
