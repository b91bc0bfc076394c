// ConfigurationManager.checkHealth(): what the application host reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import {
  type ConfigurationChange,
  ConfigurationManager,
} from "../../config/mod.ts";
import { withTempDir } from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";

test("checkHealth(): healthy, degraded while a watched file is broken (last good values in force), healthy again once fixed", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      db: { host: "db1", password: "LEAK-good" },
    });
    const config = new ConfigurationManager({
      basePath: dir.path,
      reloadDelay: 20,
    });
    const events: (readonly ConfigurationChange[])[] = [];
    config.changed.add((changes) => {
      events.push(changes);
    });
    try {
      await config.addJsonFile("appsettings.json", {
        watch: true,
        pollInterval: 20,
      });
      await config.loadConfiguration();
      assert.deepEqual(config.checkHealth(), { status: "healthy" });

      // Half-written, with a secret next to the syntax error.
      await writeFile(
        file,
        '{ "db": { "host": "db2", "password": "LEAK-broken" oops',
      );
      await waitFor(() => events.length === 1, "the failed reload", 10_000);
      const degraded = config.checkHealth();
      assert.equal(degraded.status, "degraded");
      const detail = degraded.detail as Record<string, string>;
      assert.equal(detail.source, "appsettings.json");
      assert.match(
        detail.error,
        /^Configuration file .*appsettings\.json is not valid JSON: /,
      );
      assert.equal(detail.effect, "the last good configuration stays in force");
      assert.ok(!Number.isNaN(Date.parse(detail.failedAt)));
      assert.ok(!JSON.stringify(degraded).includes("LEAK"));
      assert.equal(config.getValue("db:host"), "db1");

      await writeFile(
        file,
        JSON.stringify({ db: { host: "db3", password: "LEAK-good" } }),
      );
      // writeFile truncates, then writes: the watcher may read the file
      // empty in between (one more failed reload) before it reads it whole.
      await waitFor(
        () => config.getValue("db:host") === "db3",
        "the fixed reload",
        10_000,
      );
      assert.deepEqual(config.checkHealth(), { status: "healthy" });
      assert.equal(config.getValue("db:host"), "db3");
    } finally {
      await config.close();
    }
  });
});

test("checkHealth(): an error that quotes a secret is masked; before a successful load it is unhealthy", async () => {
  let fail = false;
  const config = new ConfigurationManager();
  config.addProvider({
    name: "vault https://svc:LEAK-1@vault.example.com",
    load: () => {
      if (fail) {
        throw new Error(
          "cannot reach postgres://app:LEAK-2@db/app with Bearer LEAK-3.x",
        );
      }
      return [{ key: "db:password", value: "LEAK-4-value" }];
    },
  });
  assert.deepEqual(config.checkHealth(), {
    status: "unhealthy",
    detail:
      "the configuration is not loaded yet; await config.loadConfiguration()",
  });
  fail = true;
  await assert.rejects(config.loadConfiguration());
  const never = config.checkHealth();
  assert.equal(never.status, "unhealthy");
  assert.ok(!JSON.stringify(never).includes("LEAK"), JSON.stringify(never));

  fail = false;
  await config.loadConfiguration();
  assert.equal(config.checkHealth().status, "healthy");

  fail = true;
  await assert.rejects(config.reload());
  const degraded = config.checkHealth();
  assert.equal(degraded.status, "degraded");
  assert.deepEqual(degraded.detail, {
    source: "vault https://svc:***@vault.example.com",
    error: "cannot reach postgres://app:***@db/app with Bearer ***",
    failedAt: (degraded.detail as { failedAt: string }).failedAt,
    effect: "the last good configuration stays in force",
  });
  assert.equal(config.getValue("db:password"), "LEAK-4-value");
});
