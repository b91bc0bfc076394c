// The `<NAME>_FILE` naming rule, shared by the configuration (which reads
// such variables) and the host's settings (which never print their values).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  isFileSource,
  withoutFileSuffix,
} from "../../internal/settings/file_variable.ts";

test("withoutFileSuffix() names the variable a _FILE variable stands for", () => {
  assert.equal(withoutFileSuffix("APP_DB__PASSWORD_FILE"), "APP_DB__PASSWORD");
  assert.equal(withoutFileSuffix("app_db__password_file"), "app_db__password");
  assert.equal(withoutFileSuffix("_FILE"), undefined);
  assert.equal(withoutFileSuffix("APP__FILE"), undefined);
  assert.equal(withoutFileSuffix("APP_PROFILE"), undefined);
});

test("isFileSource() tells a _FILE variable's source label", () => {
  assert.equal(isFileSource("env APP_SERVER__MAX_BODY_SIZE_FILE"), true);
  assert.equal(isFileSource("env APP_SERVER__MAX_BODY_SIZE"), false);
  assert.equal(isFileSource("appsettings_FILE"), false);
  assert.equal(isFileSource("memory"), false);
});
