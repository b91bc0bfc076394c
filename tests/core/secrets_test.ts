import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import {
  createSecretMatcher,
  isSecretKey,
  maskSecretText,
  SECRET_MASK,
  secretKeyWords,
  secretValueKeyWords,
} from "../../core/mod.ts";
import { SECRET_ROWS, SECRET_TABLE } from "./_secret_table.ts";

test("The secret rule masks the 23 secrets of the 30-row table and keeps the 7 plain values", () => {
  const matcher = createSecretMatcher();
  let masked = 0;
  for (const row of SECRET_TABLE) {
    const shown = matcher.maskValue(row.key, row.value);
    assert.deepEqual(shown, row.shown, row.key);
    assert.ok(!String(shown).includes("LEAK"), `${row.key} leaks`);
    if (shown !== row.value) masked++;
  }
  assert.equal(SECRET_TABLE.length, 30);
  assert.equal(masked, SECRET_ROWS);
  assert.equal(masked, 23);
});

test("The word lists hold the common secret names", () => {
  for (
    const word of [
      "password",
      "pass",
      "pwd",
      "passphrase",
      "secret",
      "secretAccessKey",
      "apiKey",
      "token",
      "bearer",
      "authorization",
      "credential",
      "connectionString",
      "dsn",
    ]
  ) {
    assert.ok(secretKeyWords.includes(word), word);
  }
  assert.deepEqual([...secretValueKeyWords], ["session", "cookie", "private"]);
  assert.equal(SECRET_MASK, "***");
  assert.ok(Object.isFrozen(secretKeyWords));
});

describe("isSecretKey()", () => {
  it("matches the end of any segment, ignoring case, separators, plurals and digits", () => {
    for (
      const key of [
        "PASSWORD",
        "db_password",
        "dbpassword",
        "client-secret",
        "API_KEY",
        "APIKEY",
        "X-Api-Key",
        "auth:apiKeys:0",
        "auth:tokens",
        "csrftoken",
        "password2",
        "credentials:username",
        "secrets:stripe",
        "SMTP_PASS",
        "smtpPass",
        "DB_PWD",
        "http.request.header.authorization",
      ]
    ) {
      assert.equal(isSecretKey(key), true, key);
    }
  });
  it("does not mask words that only contain a secret word", () => {
    for (
      const key of [
        "tokenExpiry",
        "passwordPolicy:minLength",
        "compass",
        "bypass",
        "sessionTimeout",
        "session:timeout",
        "cookie:maxAge",
        "cookie:secure",
        "private:count",
        "user:name",
        "api:baseUrl",
        "0",
      ]
    ) {
      assert.equal(isSecretKey(key), false, key);
    }
  });
  it("masks session, cookie and private as the last segment, for values and lists, not settings or flags", () => {
    const matcher = createSecretMatcher();
    assert.equal(matcher.match("session"), "value");
    assert.equal(matcher.match("http:setCookie"), "value");
    assert.equal(matcher.match("cookies:0"), "value");
    assert.equal(matcher.match("password"), "all");
    assert.equal(matcher.match("session:timeout"), "none");
    assert.equal(matcher.maskValue("session", "abc123"), "***");
    assert.equal(matcher.maskValue("cookies", ["a=1"]), "***");
    assert.equal(matcher.maskValue("jwt:private", 42), "***");
    assert.equal(matcher.maskValue("isPrivate", true), true);
    assert.deepEqual(matcher.maskValue("session", { ttl: 5 }), { ttl: 5 });
    assert.equal(matcher.maskValue("password", true), "***");
  });
  it("adds extra words and patterns (whole key or one segment)", () => {
    assert.equal(isSecretKey("device:pin"), false);
    assert.equal(isSecretKey("device:pin", ["pin"]), true);
    assert.equal(isSecretKey("crypto:salt", [/^salt$/i]), true);
    assert.equal(isSecretKey("ssn", [/^ssn$/]), true);
    assert.equal(isSecretKey("crypto:pepper", [/^salt$/i]), false);
    assert.throws(
      () => createSecretMatcher("pin" as unknown as string[]),
      TypeError,
    );
  });
  it("shares one matcher without extras and keeps its cache bounded", () => {
    const matcher = createSecretMatcher();
    assert.equal(createSecretMatcher([]), matcher);
    for (let i = 0; i < 5000; i++) matcher.isSecret(`key${i}:password`);
    assert.equal(matcher.isSecret("key1:password"), true);
    assert.equal(matcher.isSecret("key1:name"), false);
  });
});

describe("maskSecretText()", () => {
  it("masks the password of a URL's user information and keeps the rest", () => {
    assert.equal(
      maskSecretText("connect postgres://app:s3cr@t!@db:5432/app?ssl=1 now"),
      "connect postgres://app:***@db:5432/app?ssl=1 now",
    );
    assert.equal(
      maskSecretText("mongodb+srv://u:LEAK@cluster0.example.net/db"),
      "mongodb+srv://u:***@cluster0.example.net/db",
    );
    assert.equal(
      maskSecretText('{"url":"http://user:PASSWORD@host/x"}'),
      '{"url":"http://user:***@host/x"}',
    );
    assert.equal(
      maskSecretText("http://user@host:8080/x"),
      "http://user@host:8080/x",
    );
    assert.equal(
      maskSecretText("https://example.com/a:b@c"),
      "https://example.com/a:b@c",
    );
  });
  it("masks Bearer and Basic credentials, not ordinary words after them", () => {
    assert.equal(
      maskSecretText("Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig"),
      "Authorization: Bearer ***",
    );
    assert.equal(maskSecretText("basic dXNlcjpwYXNz"), "basic ***");
    assert.equal(
      maskSecretText("Basic authentication failed"),
      "Basic authentication failed",
    );
  });
  it("masks secret names in name=value pairs and JSON members", () => {
    assert.equal(
      maskSecretText("GET /cb?code=1&access_token=LEAK&x=2"),
      "GET /cb?code=1&access_token=***&x=2",
    );
    assert.equal(
      maskSecretText("Server=db;Uid=app;Pwd=LEAK;"),
      "Server=db;Uid=app;Pwd=***;",
    );
    assert.equal(
      maskSecretText('{"user":"ann","password":"LEAK","n":1}'),
      '{"user":"ann","password":"***","n":1}',
    );
    assert.equal(
      maskSecretText("timeout=30 retries=2"),
      "timeout=30 retries=2",
    );
  });
  it("masks given literal secrets wherever they appear, ignoring very short ones", () => {
    assert.equal(
      maskSecretText("login failed for hunter22 (hunter22)", ["hunter22"]),
      "login failed for *** (***)",
    );
    assert.equal(maskSecretText("a 1 b", ["1"]), "a 1 b");
  });
  it("returns plain text unchanged", () => {
    const text = "request handled in 12 ms";
    assert.equal(maskSecretText(text), text);
    assert.equal(maskSecretText(""), "");
  });
});
