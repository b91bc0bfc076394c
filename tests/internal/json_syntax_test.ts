import { test } from "node:test";
import assert from "node:assert/strict";
import { parseConfigurationJson } from "../../internal/json_syntax.ts";

test("parseConfigurationJson() reads JSON with comments, trailing commas and a byte-order mark", () => {
  assert.deepEqual(parseConfigurationJson('{"a": 1}'), {
    ok: true,
    value: { a: 1 },
  });
  assert.deepEqual(
    parseConfigurationJson('\ufeff{\n  // port\n  "port": 80, /* web */\n}'),
    { ok: true, value: { port: 80 } },
  );
});

test("parseConfigurationJson() reports the line and column where the text breaks, without quoting it", () => {
  const result = parseConfigurationJson(
    '{\n  "password": "s3cret"\n  "b": 2\n}',
  );
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.problem.line, 3);
  assert.equal(result.problem.column, 3);
  assert.doesNotMatch(result.problem.description, /s3cret/);
});
