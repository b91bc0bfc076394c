import { test } from "node:test";
import assert from "node:assert/strict";
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
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

// Node.js's randomUUID() gives a string V8 must copy into one piece when it
// is read whole (a header, a pattern): there randomId() makes its ids from
// random bytes drawn for 256 ids at a time. Deno's and Bun's are cheap as
// they are, and kept.
test("randomId() in Node.js makes its ids from getRandomValues bytes drawn for 256 at a time, elsewhere takes randomUUID()", () => {
  const node = !("Deno" in globalThis) && !("Bun" in globalThis);
  const crypto = globalThis.crypto;
  let draws = 0;
  Object.defineProperty(crypto, "getRandomValues", {
    value: <T extends ArrayBufferView | null>(array: T): T => {
      draws++;
      const bytes = array as unknown as Uint8Array;
      // Each id's 16 bytes: 1 … 14 (plus the draws before), then which id
      // of the draw it is, then the draw.
      for (let i = 0; i < bytes.length; i++) {
        const place = i % 16;
        bytes[i] = place < 14
          ? place + draws
          : place === 14
          ? Math.floor(i / 16)
          : draws;
      }
      return array;
    },
    configurable: true,
  });
  Object.defineProperty(crypto, "randomUUID", {
    value: () => "from-randomUUID",
    configurable: true,
  });
  try {
    if (!node) {
      assert.equal(randomId(), "from-randomUUID");
      assert.equal(draws, 0);
      return;
    }
    // The ids left from an earlier draw come first.
    let id = randomId();
    for (let i = 0; i < 256 && draws === 0; i++) id = randomId();
    assert.equal(draws, 1, "one draw within 257 ids");
    // The first id of a draw is made of its first 16 bytes, version 4 and
    // variant bits set.
    assert.equal(id, "01020304-0506-4708-890a-0b0c0d0e0001");
    const ids = new Set([id]);
    for (let i = 1; i < 256; i++) ids.add(randomId());
    assert.equal(draws, 1, "256 ids per draw");
    assert.equal(ids.size, 256);
    for (const each of ids) assert.match(each, UUID_V4);
    randomId();
    assert.equal(draws, 2);
    // The rest of this made-up draw is used up here, so that no later id
    // of this process comes from it.
    for (let i = 1; i < 256; i++) randomId();
    assert.equal(draws, 2);
  } finally {
    delete (crypto as { getRandomValues?: unknown }).getRandomValues;
    delete (crypto as { randomUUID?: unknown }).randomUUID;
  }
  assert.equal(typeof crypto.getRandomValues, "function");
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
