// KitError, the base of every error Kit throws or reports: the type guard
// (with and without a code), `instanceof` across built-in bases, and that
// every error class any entry point exports is one.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as core from "../../core/mod.ts";
import * as platform from "../../platform/mod.ts";
import * as database from "@vendor/kit-platform/database";
import * as config from "../../config/mod.ts";
import * as logging from "../../logging/mod.ts";
import * as http from "../../http/mod.ts";
import * as localization from "../../localization/mod.ts";
import * as caching from "../../caching/mod.ts";
import * as analytics from "../../analytics/mod.ts";
import {
  KIT_ERROR_BRAND,
  SETTING_ERROR_BRAND,
} from "../../internal/error_marks.ts";

const { isKitError, KitError } = core;

class QuotaError extends KitError {
  readonly code = "quota";
  constructor(message: string) {
    super(message);
    this.name = "QuotaError";
  }
}

describe("isKitError", () => {
  it("accepts a Kit error, and one with the code asked for only", () => {
    const error: unknown = new QuotaError("Upload quota reached");
    assert.equal(isKitError(error), true);
    assert.equal(isKitError(error, "quota"), true);
    assert.equal(isKitError(error, "service_not_found"), false);
    if (isKitError(error, "quota")) {
      const code: "quota" = error.code;
      assert.equal(code, "quota");
    }
    assert.equal(error instanceof Error, true);
  });

  it("refuses what is not a Kit error, even with a code", () => {
    const lookalike = Object.assign(new Error("EADDRINUSE"), {
      code: "EADDRINUSE",
    });
    for (
      const value of [
        lookalike,
        { code: "quota", message: "x" },
        new RangeError("x"),
        null,
        undefined,
        "quota",
        42,
      ]
    ) {
      assert.equal(isKitError(value), false, String(value));
      assert.equal(value instanceof KitError, false, String(value));
    }
  });

  it("tells a thrown error by its code", () => {
    const locator = new platform.ServiceLocator();
    assert.throws(
      () => locator.get("mailer"),
      (error: unknown) =>
        isKitError(error, "service_not_found") &&
        error instanceof platform.ServiceNotFoundError &&
        error.message === "Service not found: mailer",
    );
  });
});

describe("instanceof KitError", () => {
  it("holds for an error that keeps its built-in base", () => {
    const locator = new platform.ServiceLocator();
    locator.register("a", (l) => l.get("b"));
    locator.register("b", (l) => l.get("a"));
    assert.throws(() => locator.get("a"), (error: unknown) => {
      assert.ok(error instanceof RangeError);
      assert.ok(error instanceof platform.CircularDependencyError);
      assert.ok(error instanceof KitError);
      assert.ok(isKitError(error, "circular_dependency"));
      return true;
    });
    const option = new logging.LogProviderOptionError(
      "FileLogProvider",
      "maxFileSize",
      "must be a positive integer",
      -1,
    );
    assert.ok(option instanceof TypeError);
    assert.ok(isKitError(option, "log_provider_option"));
  });

  it("keeps a subclass's instanceof to its own instances", () => {
    const base = new caching.CacheError("Cache failed");
    const store = new caching.CacheStoreError("GET", "user:1");
    assert.equal(base.code, "cache");
    assert.equal(store.code, "cache_store");
    assert.ok(store instanceof caching.CacheError);
    assert.ok(store instanceof KitError);
    assert.equal(base instanceof caching.CacheStoreError, false);
    assert.equal(new QuotaError("x") instanceof caching.CacheError, false);
  });

  it("keeps the database's codes", () => {
    const error = new database.DatabaseError(
      "closed",
      "The database is disposed",
    );
    assert.equal(error.code, "closed");
    assert.ok(isKitError(error, "closed"));
  });
});

describe("every exported error class", () => {
  it("that is a setting error is marked as one, and a Kit error", () => {
    const settingErrors: string[] = [];
    for (
      const [entry, exports] of Object.entries({
        core,
        platform,
        database,
        logging,
        http,
        localization,
        caching,
        analytics,
      })
    ) {
      for (const [name, value] of Object.entries(exports)) {
        if (typeof value !== "function") continue;
        const prototype = value.prototype as Record<symbol, unknown> | null;
        if (prototype?.[SETTING_ERROR_BRAND] !== true) continue;
        settingErrors.push(`${entry}.${name}`);
        assert.equal(prototype[KIT_ERROR_BRAND], true, name);
      }
    }
    assert.deepEqual(settingErrors.sort(), [
      "analytics.AnalyticsConfigurationError",
      "caching.CacheSettingError",
      "core.SettingError",
      "database.DatabaseConfigurationError",
      "http.HttpConfigurationError",
      "localization.LocalizationConfigurationError",
      "logging.LoggingConfigurationError",
      "platform.ServerSettingError",
    ]);
  });

  it("is a KitError", () => {
    const entryPoints = {
      core,
      platform,
      database,
      config,
      logging,
      http,
      localization,
      caching,
      analytics,
    };
    const errorClasses: string[] = [];
    const notKit: string[] = [];
    for (const [entry, exports] of Object.entries(entryPoints)) {
      for (const [name, value] of Object.entries(exports)) {
        if (typeof value !== "function" || value === KitError) continue;
        const prototype: unknown = value.prototype;
        if (!(prototype instanceof Error)) continue;
        errorClasses.push(`${entry}.${name}`);
        const marked =
          (prototype as { [KIT_ERROR_BRAND]?: unknown })[KIT_ERROR_BRAND];
        if (marked !== true) notKit.push(`${entry}.${name}`);
      }
    }
    // Enough classes seen that the walk over the exports did run.
    assert.ok(errorClasses.length >= 47, errorClasses.join(", "));
    // The setting errors that keep their RangeError base are among them.
    for (
      const name of ["platform.ServerSettingError", "caching.CacheSettingError"]
    ) {
      assert.ok(errorClasses.includes(name), name);
    }
    assert.deepEqual(notKit, []);
  });
});
