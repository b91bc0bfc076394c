import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRetryAfter } from "../../internal/delivery/retry_after.ts";

test("parseRetryAfter() reads seconds, fractions included, as milliseconds", () => {
  assert.equal(parseRetryAfter("120"), 120_000);
  assert.equal(parseRetryAfter(" 0 "), 0);
  assert.equal(parseRetryAfter("1.5"), 1500);
});

test("parseRetryAfter() reads an HTTP date against now; a past date means no wait", () => {
  const now = Date.UTC(2015, 9, 21, 7, 27, 0);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 60_000);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
});

test("parseRetryAfter() answers undefined for a missing, empty or unreadable header", () => {
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter(""), undefined);
  assert.equal(parseRetryAfter("   "), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  assert.equal(parseRetryAfter("-5"), undefined);
});
