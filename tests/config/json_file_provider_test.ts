import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  JsonFileProvider,
} from "../../config/mod.ts";
import { withTempDir } from "./_helpers.ts";

test("ConfigurationManager.addJsonFile() fails for a missing required file, naming its absolute path", async () => {
  await withTempDir(async (dir) => {
    const config = new ConfigurationManager({ basePath: dir.path });
    const expected = join(dir.path, "appsettings.json");
    await assert.rejects(
      config.addJsonFile("appsettings.json"),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(
          error.message,
          `Configuration file not found: ${expected}`,
        );
        assert.equal(error.path, expected);
        assert.equal(error.source, "appsettings.json");
        return true;
      },
    );
  });
});

test("ConfigurationManager.addJsonFile() skips a missing optional file", async () => {
  await withTempDir(async (dir) => {
    const config = new ConfigurationManager({ basePath: dir.path });
    await config.addJsonFile("appsettings.staging.json", { optional: true });
    await config.loadConfiguration();
    assert.deepEqual(config.explain(), []);
  });
});

test("JsonFileProvider: invalid JSON names the absolute path, the line and the column", async () => {
  await withTempDir(async (dir) => {
    await dir.write(
      "broken.json",
      '{\n  "database": {\n    "timeout": 1000\n    "poolSize": 5\n  }\n}\n',
    );
    const config = new ConfigurationManager({ basePath: dir.path });
    const expected = join(dir.path, "broken.json");
    await assert.rejects(
      config.addJsonFile("broken.json"),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(
          error.message,
          `Configuration file ${expected} is not valid JSON: expected ',' or '}' after a property value but found '"' at line 4, column 5`,
        );
        assert.equal(error.line, 4);
        assert.equal(error.column, 5);
        assert.equal(error.path, expected);
        return true;
      },
    );
  });
});

test("JsonFileProvider: truncated and empty files are reported with a position", async () => {
  await withTempDir(async (dir) => {
    const truncated = await dir.write(
      "truncated.json",
      '{\n  "a": {\n    "b": 1',
    );
    const empty = await dir.write("empty.json", "  \n");
    const config = new ConfigurationManager();
    await assert.rejects(config.addJsonFile(truncated), {
      message:
        `Configuration file ${truncated} is not valid JSON: expected ',' or '}' after a property value but found end of file at line 3, column 11`,
    });
    await assert.rejects(config.addJsonFile(empty), {
      message:
        `Configuration file ${empty} is not valid JSON: the file is empty at line 2, column 1`,
    });
  });
});

test("JsonFileProvider: valid JSON that is not an object is rejected, naming the file", async () => {
  await withTempDir(async (dir) => {
    const array = await dir.write("array.json", "[1, 2]");
    const text = await dir.write("string.json", '"hello"');
    const config = new ConfigurationManager();
    await assert.rejects(config.addJsonFile(array), {
      name: "ConfigurationSourceError",
      message:
        `Configuration file ${array} must contain a JSON object at the top level, not an array`,
    });
    await assert.rejects(config.addJsonFile(text), {
      message:
        `Configuration file ${text} must contain a JSON object at the top level, not a string`,
    });
  });
});

test("JsonFileProvider: accepts comments, trailing commas and a byte-order mark like .NET's appsettings.json", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write(
      "appsettings.json",
      '\ufeff{\n  // the database\n  "database": { /* inline */ "timeout": 1000, },\n  "list": [1, 2, ],\n}\n',
    );
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    await config.loadConfiguration();
    assert.equal(config.getValue("database:timeout"), 1000);
    assert.deepEqual(config.getValue("list"), [1, 2]);
  });
});

test("JsonFileProvider: colon paths inside a file nest like any other key", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      "Logging:Level": "debug",
      logging: { format: "json" },
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    await config.loadConfiguration();
    assert.deepEqual(config.getSection("logging"), {
      Level: "debug",
      format: "json",
    });
  });
});

test("JsonFileProvider: basePath resolves relative paths, absolute paths stay", async () => {
  await withTempDir(async (dir) => {
    const absolute = await dir.write("nested/settings.json", {
      from: "nested",
    });
    const provider = new JsonFileProvider("nested/settings.json", {
      basePath: dir.path,
    });
    const config = new ConfigurationManager();
    await config.addProvider(provider);
    await config.addProvider(new JsonFileProvider(absolute));
    await config.loadConfiguration();
    assert.equal(provider.resolvedPath, absolute);
    assert.equal(config.getValue("from"), "nested");
  });
});

test("JsonFileProvider: a directory where the file should be is reported as unreadable", async () => {
  await withTempDir(async (dir) => {
    await dir.write("folder.json/inside.txt", "x");
    const config = new ConfigurationManager({ basePath: dir.path });
    await assert.rejects(
      config.addJsonFile("folder.json"),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.match(
          error.message,
          new RegExp(
            `^Configuration file ${
              join(dir.path, "folder.json").replace(
                /[\\^$.*+?()[\]{}|]/g,
                "\\$&",
              )
            } could not be read \\(EISDIR\\)$`,
          ),
        );
        return true;
      },
    );
  });
});

test("JsonFileProvider: rejects an empty path", () => {
  assert.throws(() => new JsonFileProvider(""), TypeError);
});

test("JsonFileProvider: each kind of syntax error has its own description and position", async () => {
  const cases: [string, string][] = [
    [
      '{ "a": 1 /* never closed',
      "unterminated /* comment at line 1, column 10",
    ],
    [
      '{ "a": "bad \\q escape" }',
      "invalid escape in a string at line 1, column 13",
    ],
    [
      '{ "a": "\\u12G4" }',
      "invalid \\u escape in a string at line 1, column 9",
    ],
    [
      '{ "a": "line\nbreak" }',
      "unterminated string (line break inside a string) at line 1, column 13",
    ],
    ['{ "a": 01 }', "invalid number at line 1, column 9"],
    [
      '{ "a": tru }',
      "expected a value but found character at line 1, column 8",
    ],
    [
      "{ a: 1 }",
      "expected a double-quoted property name but found character at line 1, column 3",
    ],
    [
      '{ "a" 1 }',
      "expected ':' after a property name but found character at line 1, column 7",
    ],
    [
      '{ "a": [1 2] }',
      "expected ',' or ']' after an array element but found character at line 1, column 11",
    ],
    [
      '{ "a": 1 }\n}',
      "unexpected '}' after the end of the JSON value at line 2, column 1",
    ],
  ];
  await withTempDir(async (dir) => {
    const config = new ConfigurationManager();
    for (const [index, [text, problem]] of cases.entries()) {
      const file = await dir.write(`case${index}.json`, text);
      await assert.rejects(config.addJsonFile(file), {
        message: `Configuration file ${file} is not valid JSON: ${problem}`,
      }, text);
    }
  });
});
