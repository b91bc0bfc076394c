// Kit's own diagnostic lines for the Redis connections (reconnect attempts,
// connect and handshake outcomes): written to standard error, prefixed
// `[kit] `, only when KIT_LOG_LEVEL is `debug`, as the application host does
// for its start-up steps.
import { readEnvironmentVariable as readEnv } from "../internal/settings/environment.ts";

/** Writes one diagnostic line. */
export type Diagnostics = (message: string) => void;

/**
 * The diagnostic writer when `KIT_LOG_LEVEL` is `debug` (any case), else
 * `undefined`. Read once per provider, not per command.
 */
export function diagnosticsFromEnv(): Diagnostics | undefined {
  const level = readEnv("KIT_LOG_LEVEL");
  if (level === undefined || level.trim().toLowerCase() !== "debug") {
    return undefined;
  }
  return (message) => console.error(`[kit] ${message}`);
}

/** What went wrong, in one line, for a diagnostic. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const text = error.message !== ""
      ? error.message
      : typeof code === "string"
      ? code
      : error.name;
    return text.replace(/\s+/g, " ");
  }
  return String(error);
}
