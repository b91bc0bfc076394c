// SettingError, the base of every error about a setting that cannot be
// used: each module's configuration error is one (keeping its own name,
// code and message), carries the key at fault, and `instanceof` holds for
// the database's, which keeps DatabaseError as its base.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isKitError, KitError, SettingError } from "../../core/mod.ts";
import * as database from "@vendor/kit-platform/database";
import * as logging from "../../logging/mod.ts";
import * as http from "../../http/mod.ts";
import * as localization from "../../localization/mod.ts";
import * as analytics from "../../analytics/mod.ts";
import * as platform from "../../platform/mod.ts";
import * as caching from "../../caching/mod.ts";

/** A configuration with nothing set. */
const empty = {
  hasValue: (): boolean => false,
  getValue: <T>(_key: string, fallback?: T): T => fallback as T,
};

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

class QuotaSettingError extends SettingError {
  readonly code = "quota_setting";
  constructor(message: string, key: string, source?: string) {
    super(message, { key, source });
    this.name = "QuotaSettingError";
  }
}

describe("SettingError", () => {
  it("carries the key and the source, and is a Kit error", () => {
    const error: unknown = new QuotaSettingError(
      'quota:files must be a whole number: "ten"',
      "quota:files",
      "APP_QUOTA__FILES",
    );
    assert.ok(error instanceof SettingError);
    assert.ok(error instanceof KitError);
    assert.ok(isKitError(error, "quota_setting"));
    assert.equal(error.key, "quota:files");
    assert.equal(error.source, "APP_QUOTA__FILES");
    assert.equal(error.name, "QuotaSettingError");
  });

  it("leaves the source undefined for a missing setting", () => {
    const error = new QuotaSettingError(
      "quota:files is not set",
      "quota:files",
    );
    assert.equal(error.source, undefined);
  });

  it("refuses other errors, Kit's or not", () => {
    for (
      const value of [
        new Error("x"),
        new RangeError("x"),
        new http.TimeoutError(1000, "attempt"),
        new database.DatabaseError("closed", "closed"),
        { key: "a", source: "b", message: "x" },
        null,
        "x",
      ]
    ) {
      assert.equal(value instanceof SettingError, false, String(value));
    }
  });

  it("is the base of every module's configuration error", () => {
    const errors: [unknown, string, string, string | undefined][] = [
      [
        caught(() => http.HttpClient.fromConfiguration(empty)),
        "HttpConfigurationError",
        "http_configuration",
        "api:baseUrl",
      ],
      [
        caught(() => localization.LocalizationManager.fromConfiguration(empty)),
        "LocalizationConfigurationError",
        "localization_configuration",
        undefined,
      ],
      [
        caught(() =>
          new logging.LoggerManager().fromConfiguration({
            hasValue: (key: string) => key === "logging:providers",
            getValue: <T>(_key: string): T => [{ type: "syslog" }] as T,
          })
        ),
        "LoggingConfigurationError",
        "logging_configuration",
        "logging:providers",
      ],
      [
        caught(() => new analytics.AnalyticsManager({ samplingRate: 1.5 })),
        "AnalyticsConfigurationError",
        "analytics_configuration",
        undefined,
      ],
      [
        caught(() =>
          new database.Database({ connectionString: "mysql://db/app" })
        ),
        "DatabaseConfigurationError",
        "configuration",
        "database:connectionString",
      ],
    ];
    for (const [error, name, code, key] of errors) {
      assert.ok(error instanceof SettingError, name);
      assert.ok(isKitError(error, code), name);
      assert.equal((error as Error).name, name);
      if (key !== undefined) assert.equal(error.key, key, name);
    }
    // The two that keep their RangeError base.
    const kept: [unknown, string][] = [
      [
        new platform.ServerSettingError(
          "server:port",
          'server:port must be a whole number from 0 to 65535: "abc" (from PORT)',
          "PORT",
        ),
        "server_setting",
      ],
      [
        caught(() => new caching.RemoteStoreCacheProvider({ port: 0 })),
        "cache_setting",
      ],
    ];
    for (const [error, code] of kept) {
      assert.ok(error instanceof SettingError, code);
      assert.ok(error instanceof RangeError, code);
      assert.ok(isKitError(error, code), code);
    }
    assert.equal(
      kept[1][0] instanceof SettingError && kept[1][0].key,
      "cache:redis:port",
    );
    // Still what the module's own code catches.
    assert.ok(errors[0][0] instanceof http.HttpConfigurationError);
    assert.ok(errors[4][0] instanceof database.DatabaseError);
    assert.ok(errors[4][0] instanceof database.DatabaseConfigurationError);
  });
});
