import { KitError } from "../../core/mod.ts";

/**
 * Thrown by the synchronous {@linkcode ServiceLocator.get} for a service whose
 * factory returns a promise and that is not created yet. Ask for it with
 * `await locator.getAsync(name)` instead; once created, `get` returns it too.
 *
 * @example Usage
 * ```ts
 * import { AsyncServiceError, ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.register("db", async () => ({ connected: true }));
 * try {
 *   locator.get("db");
 * } catch (error) {
 *   if (error instanceof AsyncServiceError) await locator.getAsync("db");
 * }
 * ```
 */
export class AsyncServiceError extends KitError {
  /** What went wrong, as a stable string: `async_service`. */
  readonly code = "async_service";

  /** The service that has to be awaited. */
  readonly serviceName: string;

  /**
   * Creates the error.
   *
   * @param serviceName The service whose factory is asynchronous.
   */
  constructor(serviceName: string) {
    super(
      `Service '${serviceName}' is created asynchronously: use getAsync('${serviceName}')`,
    );
    this.name = "AsyncServiceError";
    this.serviceName = serviceName;
  }
}
