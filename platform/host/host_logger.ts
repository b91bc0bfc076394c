import type { ApplicationLogger } from "./application_logger.ts";
import { loggerOf } from "./_application_support.ts";
import { currentHostLogging } from "./_host_logging.ts";

/**
 * The logger of the running application for `category`: what its logging
 * step returned, asked for `getLogger(category)` (a `LoggerManager`), or
 * that value itself when it is a logger. `undefined` when no application
 * with a logging step is running; then write to the console as before.
 *
 * Kit's own parts use it for what they report by default (`kit.cache`,
 * `kit.analytics`, `kit.localization`), and a library built on Kit can do
 * the same under its own category, so that its messages reach the
 * application's log providers with the request's context. An application
 * counts from the end of its logging step to the very end of its `stop()`;
 * when several run in one process, the one started last answers. Ask at the
 * time of writing rather than keeping the logger: the application may stop.
 *
 * @param category The category of the entries (`my-lib.store`).
 * @returns The logger, or `undefined` outside a running application with a
 * logging step.
 * @throws {TypeError} When `category` is not a non-empty string.
 *
 * @example Writing through the application's logging when there is one
 * ```ts
 * import { hostLogger } from "@vendor/kit/platform";
 *
 * function reportRetry(error: Error): void {
 *   const logger = hostLogger("my-lib.queue");
 *   if (logger !== undefined) logger.warning(error.message, { error });
 *   else console.warn("my-lib:", error);
 * }
 * reportRetry(new Error("the queue did not answer"));
 * ```
 */
export function hostLogger(category: string): ApplicationLogger | undefined {
  if (typeof category !== "string" || category === "") {
    throw new TypeError("hostLogger: category must be a non-empty string");
  }
  const logging = currentHostLogging();
  return logging === undefined ? undefined : loggerOf(logging.value, category);
}
