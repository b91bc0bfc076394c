// What the HTTP client writes to the running application's log, under
// `kit.http`: addresses as lines show them, and debug lines written only
// when debug lines are kept. The logger is looked up at the time of writing
// (the application may have stopped); outside an application nothing is
// written.
import { maskSecretText } from "../core/mod.ts";
import { hostLogger } from "../platform/mod.ts";
import { displayUrl } from "./_display_url.ts";

/** The category of the HTTP client's lines. */
export const LOG_CATEGORY = "kit.http";

/** `url` as a log line shows it: no credentials, no query, secrets masked. */
export function logUrl(url: string): string {
  return maskSecretText(displayUrl(url));
}

/** Writes a debug line under `kit.http` when debug lines are written. */
export function logDebug(
  message: string,
  properties: Record<string, unknown>,
): void {
  const logger = hostLogger(LOG_CATEGORY);
  if (logger === undefined || logger.isEnabled?.(0) === false) return;
  logger.debug(message, properties);
}
