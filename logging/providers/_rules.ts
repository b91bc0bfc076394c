// The options each built-in provider accepts, with how they are checked.
import type { Rules } from "./_options.ts";

const COMMON: Rules = {
  level: { kind: "level" },
  redactKeys: { kind: "keys" },
};

export const CONSOLE_RULES: Rules = {
  colorize: { kind: "boolean" },
  timestamp: { kind: "boolean" },
  format: { kind: "enum", values: ["simple", "json"] },
  ...COMMON,
  console: { kind: "object" },
  isTerminal: { kind: "boolean" },
};

export const FILE_RULES: Rules = {
  filename: { kind: "string" },
  maxFileSize: { kind: "integer", min: 1 },
  maxFiles: { kind: "integer", min: 1 },
  format: { kind: "enum", values: ["json", "simple"] },
  ...COMMON,
  onError: { kind: "function" },
};

export const REMOTE_RULES: Rules = {
  endpoint: { kind: "url" },
  apiKey: { kind: "string" },
  batchSize: { kind: "integer", min: 1 },
  flushInterval: { kind: "integer", min: 1 },
  maxBufferSize: { kind: "integer", min: 1 },
  maxRetries: { kind: "integer", min: 0 },
  retryDelay: { kind: "integer", min: 0 },
  maxRetryDelay: { kind: "integer", min: 0 },
  timeout: { kind: "integer", min: 1 },
  format: { kind: "enum", values: ["json", "otlp"] },
  serviceName: { kind: "string" },
  ...COMMON,
  onError: { kind: "function" },
};
