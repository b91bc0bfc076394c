// What a client made by HttpClient.fromConfiguration writes about its retries
// when the application gives no onRetry of its own: each retry at info (a
// retry that then succeeds is the client doing its job, and an outage of a
// dependency would otherwise turn every call into warnings), and a call that
// gives up after retrying at warning (the failure the caller is about to
// see). Written through the running application's logging under `kit.http`,
// looked up at the time of writing (the application may have stopped);
// outside an application nothing is written: the caller gets the error.
import { hostLogger } from "../../platform/mod.ts";
import { LOG_CATEGORY, logUrl } from "../_log.ts";
import type { HttpRetryEvent } from "../http_client_options.ts";

/** What went wrong with an attempt: `got 503` or `failed (TypeError)`. */
function outcome(status: number | undefined, error: unknown): string {
  return status !== undefined ? `got ${status}` : `failed (${nameOf(error)})`;
}

/** The name of an error, never its message (which may carry the address). */
function nameOf(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : "Error";
}

/** Logs a retry about to happen (info). */
export function reportRetry(
  event: HttpRetryEvent,
  retryAttempts: number,
): void {
  const logger = hostLogger(LOG_CATEGORY);
  if (logger === undefined) return;
  const url = logUrl(event.url);
  const properties: Record<string, unknown> = {
    method: event.method,
    url,
    retry: event.retry,
    retryAttempts,
  };
  if (event.status !== undefined) properties.status = event.status;
  else properties.error = nameOf(event.error);
  properties.delay = event.delay;
  logger.info(
    `${event.method} ${url} ${
      outcome(event.status, event.error)
    }; retry ${event.retry} of ${retryAttempts} in ${event.delay} ms`,
    properties,
  );
}

/**
 * Logs a call that gives up on a failure it would have retried (warning):
 * its retries are used up, or the next one would pass the total timeout
 * (`totalTimeout` given).
 */
export function reportGaveUp(
  method: string,
  url: string,
  attempts: number,
  status: number | undefined,
  error: unknown,
  totalTimeout?: number,
): void {
  const logger = hostLogger(LOG_CATEGORY);
  if (logger === undefined) return;
  const shown = logUrl(url);
  const properties: Record<string, unknown> = {
    method,
    url: shown,
    attempts,
  };
  if (status !== undefined) properties.status = status;
  else properties.error = nameOf(error);
  const why = totalTimeout === undefined
    ? ""
    : `: another would pass the total timeout of ${totalTimeout} ms`;
  logger.warning(
    `${method} ${shown} ${outcome(status, error)}; gave up after ${attempts} ${
      attempts === 1 ? "attempt" : "attempts"
    }${why}`,
    properties,
  );
}
