// Limits of the file sources: nesting depth, file size, strict UTF-8.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  DotEnvProvider,
  JsonFileProvider,
} from "../../config/mod.ts";
import { withTempDir } from "./_helpers.ts";

function nested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

function path(segments: number): string {
  return Array.from({ length: segments }, () => "a").join(":");
}

test("A JSON file nested 10,000 levels deep fails with a ConfigurationSourceError naming the file and the key path", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("deep.json", nested(10_000));
    const config = new ConfigurationManager();
    await assert.rejects(config.addJsonFile(file), (error: unknown) => {
      assert.ok(error instanceof ConfigurationSourceError, String(error));
      assert.equal(error.path, file);
      assert.equal(
        error.message,
        `Configuration file ${file} nests deeper than 200 levels at "${
          path(201).slice(0, 60)
        }…${path(201).slice(-40)}"; flatten that part of the configuration`,
      );
      return true;
    });
  });
});

test("200 levels load; 201 do not", async () => {
  await withTempDir(async (dir) => {
    const ok = await dir.write("ok.json", nested(200));
    const config = new ConfigurationManager();
    await config.addJsonFile(ok);
    await config.loadConfiguration();
    assert.equal(config.getValue(path(200)), 1);
    const deep = await dir.write("deep.json", nested(201));
    await assert.rejects(
      new ConfigurationManager().addJsonFile(deep),
      /nests deeper than 200 levels at "a:a:a/,
    );
  });
});

test("A deep file with comments (the JSONC reader) fails with the line and column instead of a RangeError", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write(
      "deep.jsonc.json",
      `// comment\n${nested(10_000)}`,
    );
    await assert.rejects(
      new ConfigurationManager().addJsonFile(file),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError, String(error));
        assert.equal(
          error.message,
          `Configuration file ${file} is not valid JSON: the text nests deeper than 200 levels; flatten that part of the configuration at line 2, column 1001`,
        );
        return true;
      },
    );
  });
});

test("Deep values and long keys from any provider fail with a ConfigurationSourceError", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { level: deep };
  const config = new ConfigurationManager();
  assert.throws(
    () =>
      config.addProvider({
        name: "generated",
        load: () => [{ key: "root", value: deep as never }],
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationSourceError, String(error));
      assert.match(
        error.message,
        /^Configuration source generated nests deeper than 200 levels at "root:level:level/,
      );
      return true;
    },
  );
  assert.throws(
    () =>
      config.addProvider({
        name: "long keys",
        load: () => [{ key: path(10_000), value: "x" }],
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationSourceError);
      assert.match(
        error.message,
        /from long keys: it has more than 200 segments; flatten that part of the configuration$/,
      );
      return true;
    },
  );
});

test("JSON and .env files larger than maxFileSize are refused, naming the file, the limit and what to do", async () => {
  await withTempDir(async (dir) => {
    const json = await dir.write(
      "big.json",
      `{"a":"${"x".repeat(2000)}"}`,
    );
    const env = await dir.write("big.env", `A=${"x".repeat(2000)}\n`);
    const message = (file: string) =>
      `Configuration file ${file} is larger than the limit of 1024 bytes (maxFileSize); make the file smaller or raise the provider's maxFileSize option`;
    await assert.rejects(
      new JsonFileProvider(json, { maxFileSize: 1024 }).load(),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(error.message, message(json));
        assert.equal(error.path, json);
        return true;
      },
    );
    await assert.rejects(
      new DotEnvProvider(env, { maxFileSize: 1024 }).load(),
      { message: message(env) },
    );
    // Within the limit they load.
    const entries = await new JsonFileProvider(json, { maxFileSize: 4096 })
      .load();
    assert.equal(entries.length, 1);
    assert.equal(
      (await new DotEnvProvider(env, { maxFileSize: 4096 }).load()).length,
      1,
    );
    assert.throws(
      () => new JsonFileProvider(json, { maxFileSize: 0 }),
      RangeError,
    );
    assert.throws(
      () => new DotEnvProvider(env, { maxFileSize: Number.NaN }),
      RangeError,
    );
  });
});

test("The default limit is 10 MiB", async () => {
  await withTempDir(async (dir) => {
    const limit = 10 * 1024 * 1024;
    const file = join(dir.path, "limit.json");
    const body = (size: number) => `{"a":"${"x".repeat(size - 8)}"}`;
    await writeFile(file, body(limit));
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    await config.loadConfiguration();
    assert.equal((config.getValue("a") as string).length, limit - 8);
    await writeFile(file, body(limit + 1));
    await assert.rejects(
      new ConfigurationManager().addJsonFile(file),
      /is larger than the limit of 10 MiB \(maxFileSize\)/,
    );
  });
});

test("Invalid UTF-8 fails, naming the file and the byte offset, instead of becoming U+FFFD", async () => {
  await withTempDir(async (dir) => {
    const json = join(dir.path, "latin1.json");
    // "café" saved as Latin-1: é is the single byte 0xE9, at offset 10.
    await writeFile(
      json,
      Uint8Array.from([
        ...new TextEncoder().encode('{"a":"caf'),
        0xe9,
        0x22,
        0x7d,
      ]),
    );
    await assert.rejects(
      new ConfigurationManager().addJsonFile(json),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(
          error.message,
          `Configuration file ${json} is not valid UTF-8: byte 0xe9 at byte offset 9 does not begin a valid UTF-8 character; save the file as UTF-8`,
        );
        assert.equal(error.path, json);
        return true;
      },
    );
    const env = join(dir.path, "bad.env");
    await writeFile(
      env,
      Uint8Array.from([
        ...new TextEncoder().encode("OK=1\nNAME=ab"),
        0xc3,
        0x28,
        0x0a,
      ]),
    );
    await assert.rejects(new DotEnvProvider(env).load(), {
      message:
        `Configuration file ${env} is not valid UTF-8: byte 0xc3 at byte offset 12 does not begin a valid UTF-8 character; save the file as UTF-8`,
    });
    // Valid UTF-8 with a byte-order mark and multi-byte characters still loads.
    const good = join(dir.path, "good.json");
    await writeFile(good, '\ufeff{"a":"café ☕ 𝄞"}');
    const config = new ConfigurationManager();
    await config.addJsonFile(good);
    await config.loadConfiguration();
    assert.equal(config.getValue("a"), "café ☕ 𝄞");
  });
});
