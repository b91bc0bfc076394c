import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import {
  appConfigSchema,
  type ConfigurationChange,
  ConfigurationManager,
  ConfigurationSourceError,
  ConfigurationValidationError,
  MemoryProvider,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";

test("ConfigurationManager.reload() re-reads every source and reports each change through `changed`", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      file: { kept: "same", changed: "before", removed: "gone soon" },
    });
    const memory = new Map([["mem:value", "before"]]);
    await withEnv({ [`${p}_ENV__VALUE`]: "before" }, async () => {
      const config = new ConfigurationManager();
      const events: (readonly ConfigurationChange[])[] = [];
      config.changed.add((changes) => {
        events.push(changes);
      });
      await config.addJsonFile(file);
      config.addEnvironmentVariables(p);
      config.addProvider(new MemoryProvider(memory));
      await config.loadConfiguration();
      assert.equal(events.length, 0);

      await writeFile(
        file,
        JSON.stringify({ file: { kept: "same", changed: "after", added: 1 } }),
      );
      memory.set("mem:value", "after");
      await withEnv({ [`${p}_ENV__VALUE`]: "after" }, async () => {
        const changes = await config.reload();
        const expected = [
          {
            key: "file:changed",
            oldValue: "before",
            newValue: "after",
            source: file,
          },
          { key: "file:added", oldValue: undefined, newValue: 1, source: file },
          {
            key: "env:value",
            oldValue: "before",
            newValue: "after",
            source: `env ${p}_ENV__VALUE`,
          },
          {
            key: "mem:value",
            oldValue: "before",
            newValue: "after",
            source: "memory",
          },
          {
            key: "file:removed",
            oldValue: "gone soon",
            newValue: undefined,
            source: file,
          },
        ];
        assert.deepEqual(changes, expected);
        assert.deepEqual(events, [expected]);
        assert.equal(config.getValue("env:value"), "after");
        assert.equal(config.hasValue("file:removed"), false);
      });

      // Nothing changed: no event.
      await withEnv({ [`${p}_ENV__VALUE`]: "after" }, async () => {
        assert.deepEqual(await config.reload(), []);
      });
      assert.equal(events.length, 1);
    });
  });
});

test("ConfigurationManager.reload(): a failure keeps the last good configuration whole and is reported through `changed`", async () => {
  await withTempDir(async (dir) => {
    const first = await dir.write("first.json", { a: "good", shared: "first" });
    const second = await dir.write("second.json", { b: "good" });
    const config = new ConfigurationManager();
    const events: (readonly ConfigurationChange[])[] = [];
    config.changed.add((changes) => {
      events.push(changes);
    });
    await config.addJsonFile(first);
    await config.addJsonFile(second);
    await config.loadConfiguration();

    // The first file changes validly, the second is half-written.
    await writeFile(first, JSON.stringify({ a: "new", shared: "first" }));
    await writeFile(second, '{ "b": "go');
    await assert.rejects(config.reload(), ConfigurationSourceError);
    // Nothing of the first file's change was applied: no half-merged state.
    assert.equal(config.getValue("a"), "good");
    assert.equal(config.getValue("b"), "good");
    assert.equal(events.length, 1);
    const [failure] = events[0];
    assert.equal(failure.key, "");
    assert.equal(failure.source, second);
    assert.equal(failure.oldValue, undefined);
    assert.equal(failure.newValue, undefined);
    assert.ok(failure.error instanceof ConfigurationSourceError);
    assert.match(
      failure.error.message,
      /is not valid JSON: unterminated string at line 1, column 8$/,
    );

    await writeFile(second, JSON.stringify({ b: "fixed" }));
    const changes = await config.reload();
    assert.deepEqual(changes.map((change) => change.key), ["a", "b"]);
    assert.equal(config.getValue("a"), "new");
  });
});

test("ConfigurationManager({ schema }): a reload that no longer validates keeps the last good configuration", async () => {
  const memory = new Map([
    ["database:connectionString", "x"],
    ["api:baseUrl", "https://api.example.com"],
    ["logging:providers:0:type", "console"],
    ["api:timeout", "2000"],
  ]);
  const config = new ConfigurationManager({ schema: appConfigSchema });
  const events: (readonly ConfigurationChange[])[] = [];
  config.changed.add((changes) => {
    events.push(changes);
  });
  config.addProvider(new MemoryProvider(memory));
  await config.loadConfiguration();
  memory.set("api:timeout", "999999");
  await assert.rejects(config.reload(), ConfigurationValidationError);
  assert.equal(config.getValue("api:timeout"), 2000);
  assert.equal(events[0][0].source, "schema");
  assert.ok(events[0][0].error instanceof ConfigurationValidationError);
});

test("addJsonFile({ watch: true }) reloads once after a burst of writes (debounced)", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", { value: 0 });
    const config = new ConfigurationManager({ reloadDelay: 2000 });
    const events: (readonly ConfigurationChange[])[] = [];
    config.changed.add((changes) => {
      events.push(changes);
    });
    try {
      await config.addJsonFile(file, { watch: true });
      await config.loadConfiguration();
      for (let i = 1; i <= 5; i++) {
        await writeFile(file, JSON.stringify({ value: i }));
      }
      await waitFor(() => events.length > 0, "the watched reload", 20_000);
      // Give a second (wrongly undebounced) reload the chance to show up.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(events.length, 1);
      assert.deepEqual(events[0], [
        { key: "value", oldValue: 0, newValue: 5, source: file },
      ]);
      assert.equal(config.getValue("value"), 5);
    } finally {
      await config.close();
    }
  });
});

test("addJsonFile({ watch: true }): a half-written file keeps the last good configuration, the fix applies", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", { value: "good" });
    const config = new ConfigurationManager({ reloadDelay: 50 });
    const events: (readonly ConfigurationChange[])[] = [];
    config.changed.add((changes) => {
      events.push(changes);
    });
    try {
      await config.addJsonFile(file, { watch: true });
      await config.loadConfiguration();

      await writeFile(file, '{ "value": "hal');
      await waitFor(
        () => events.some((changes) => changes[0]?.error !== undefined),
        "the failed reload",
        20_000,
      );
      assert.equal(config.getValue("value"), "good");

      await writeFile(file, JSON.stringify({ value: "fixed" }));
      await waitFor(
        () => config.getValue("value") === "fixed",
        "the fixed file to load",
        20_000,
      );
      assert.ok(
        events.some((changes) =>
          changes.some((change) =>
            change.key === "value" && change.newValue === "fixed"
          )
        ),
      );
    } finally {
      await config.close();
    }
  });
});

test("ConfigurationManager.close() stops watching: later writes are not loaded", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", { value: "before" });
    const config = new ConfigurationManager({ reloadDelay: 20 });
    await config.addJsonFile(file, { watch: true });
    await config.loadConfiguration();
    await config.close();
    await writeFile(file, JSON.stringify({ value: "after" }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(config.getValue("value"), "before");
    // An explicit reload still works after close().
    await config.reload();
    assert.equal(config.getValue("value"), "after");
  });
});

test("ConfigurationManager supports `await using` (Symbol.asyncDispose)", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", { value: 1 });
    {
      await using config = new ConfigurationManager({ reloadDelay: 20 });
      await config.addJsonFile(file, { watch: true });
      await config.loadConfiguration();
      assert.equal(config.getValue("value"), 1);
    }
    // Leaving the block closed the watcher; the sanitizers would fail the
    // test otherwise.
  });
});

test("addJsonFile({ optional: true, watch: true }) loads the file once it appears", async () => {
  await withTempDir(async (dir) => {
    const config = new ConfigurationManager({
      reloadDelay: 20,
      basePath: dir.path,
    });
    try {
      await config.addJsonFile("appsettings.local.json", {
        optional: true,
        watch: true,
        pollInterval: 20,
      });
      await config.loadConfiguration();
      assert.equal(config.hasValue("value"), false);
      await dir.write("appsettings.local.json", { value: "appeared" });
      await waitFor(
        () => config.hasValue("value"),
        "the new file to load",
        20_000,
      );
      assert.equal(config.getValue("value"), "appeared");
    } finally {
      await config.close();
    }
  });
});
