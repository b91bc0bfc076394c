// Thirty keys and values whose secrets were once printed in clear,
// with what configuration and logging must show for each. Shared by the
// core, configuration and logging tests so all three prove the same rule.
// Every secret contains "LEAK", so finding "LEAK" in an output is a leak.

/** One row: the key, its value, what must be shown. */
export interface SecretRow {
  readonly key: string;
  readonly value: string | number | boolean;
  readonly shown: string | number | boolean;
}

/** The 30 rows: 23 that hold a secret, then 7 that must stay visible. */
export const SECRET_TABLE: readonly SecretRow[] = [
  {
    key: "database:url",
    value: "postgres://app:LEAK01@db:5432/app",
    shown: "postgres://app:***@db:5432/app",
  },
  {
    key: "cache:redis:url",
    value: "redis://:LEAK02@cache:6379/0",
    shown: "redis://:***@cache:6379/0",
  },
  {
    key: "sentry:dsn",
    value: "https://LEAK03@o1.ingest.sentry.io/42",
    shown: "***",
  },
  { key: "aws:secretAccessKey", value: "LEAK04/wJalrXUtnFEMI", shown: "***" },
  { key: "smtp:pass", value: "LEAK05", shown: "***" },
  { key: "db:pwd", value: "LEAK06", shown: "***" },
  { key: "app:passphrase", value: "LEAK07 horse battery", shown: "***" },
  { key: "api:bearer", value: "LEAK08.eyJhbGciOi", shown: "***" },
  { key: "http:authorization", value: "Bearer LEAK09", shown: "***" },
  {
    key: "database:connectionString",
    value: "Host=db;Password=LEAK10",
    shown: "***",
  },
  { key: "auth:jwtSecret", value: "LEAK11", shown: "***" },
  { key: "payments:stripe:apiKey", value: "sk_live_LEAK12", shown: "***" },
  { key: "github:token", value: "ghp_LEAK13", shown: "***" },
  { key: "gcp:credential", value: '{"key":"LEAK14"}', shown: "***" },
  { key: "auth:session", value: "LEAK15", shown: "***" },
  { key: "http:cookie", value: "sid=LEAK16", shown: "***" },
  { key: "jwt:private", value: "-----BEGIN LEAK17", shown: "***" },
  { key: "tls:privateKey", value: "-----BEGIN LEAK18", shown: "***" },
  { key: "DB_PASSWORD", value: "LEAK19", shown: "***" },
  { key: "headers:X-Api-Key", value: "LEAK20", shown: "***" },
  {
    key: "webhook:url",
    value: "https://hooks.example.com/in?token=LEAK21&mode=a",
    shown: "https://hooks.example.com/in?token=***&mode=a",
  },
  {
    key: "proxy:header",
    value: "Bearer LEAK22.abc-def",
    shown: "Bearer ***",
  },
  {
    key: "legacy:db",
    value: "Server=db;User Id=app;Password=LEAK23;",
    shown: "Server=db;User Id=app;Password=***;",
  },
  {
    key: "api:baseUrl",
    value: "https://api.example.com/v1",
    shown: "https://api.example.com/v1",
  },
  { key: "session:timeout", value: 3600, shown: 3600 },
  { key: "cookie:maxAge", value: 86400, shown: 86400 },
  { key: "app:sessionTimeout", value: 30, shown: 30 },
  { key: "auth:tokenExpiry", value: 3600, shown: 3600 },
  { key: "app:isPrivate", value: true, shown: true },
  { key: "nav:compass", value: "north", shown: "north" },
];

/** How many rows hold a secret. */
export const SECRET_ROWS: number =
  SECRET_TABLE.filter((row) => row.shown !== row.value).length;
