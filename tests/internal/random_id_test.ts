import { test } from "node:test";
import assert from "node:assert/strict";
import { describeNetworkError } from "../../internal/network_error.ts";
import { randomId } from "../../internal/random_id.ts";

const UUID_V4 =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("randomId() gives distinct v4 UUIDs", () => {
  const ids = new Set(Array.from({ length: 1000 }, () => randomId()));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, UUID_V4);
});

test("randomId() builds a v4 UUID from getRandomValues where randomUUID is missing (a page over plain http)", () => {
  const crypto = globalThis.crypto;
  Object.defineProperty(crypto, "randomUUID", {
    value: undefined,
    configurable: true,
  });
  try {
    const ids = new Set(Array.from({ length: 200 }, () => randomId()));
    assert.equal(ids.size, 200);
    for (const id of ids) assert.match(id, UUID_V4);
  } finally {
    delete (crypto as { randomUUID?: unknown }).randomUUID;
  }
  assert.equal(typeof crypto.randomUUID, "function");
});

test("describeNetworkError() names the causes under Node's 'fetch failed'", () => {
  const error = new TypeError("fetch failed", {
    cause: new Error("connect ECONNREFUSED 127.0.0.1:4010"),
  });
  assert.equal(
    describeNetworkError(error),
    "fetch failed (connect ECONNREFUSED 127.0.0.1:4010)",
  );
  const aggregate = new TypeError("fetch failed", {
    cause: new AggregateError([
      new Error("connect ECONNREFUSED ::1:4010"),
      new Error("connect ECONNREFUSED 127.0.0.1:4010"),
    ], ""),
  });
  assert.equal(
    describeNetworkError(aggregate),
    "fetch failed (connect ECONNREFUSED ::1:4010; connect ECONNREFUSED 127.0.0.1:4010)",
  );
  assert.equal(
    describeNetworkError(Object.assign(new Error(""), { code: "ETIMEDOUT" })),
    "ETIMEDOUT",
  );
  assert.equal(describeNetworkError(undefined), "unknown error");
});
