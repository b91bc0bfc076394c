import { KitError } from "../../core/mod.ts";
import { messageOf } from "../host/_application_support.ts";

/**
 * Thrown when a service that must exist at start-up (registered with
 * `{ eager: true }` or `{ hosted: true }`) could not be created. The message
 * names the service and keeps its factory's message intact; the factory's
 * error is the `cause`.
 *
 * @example Usage
 * ```ts
 * import { ServiceCreationError, ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.register("db", () => {
 *   throw new Error("password authentication failed");
 * }, { eager: true });
 * try {
 *   await locator.createEagerServices();
 * } catch (error) {
 *   if (error instanceof ServiceCreationError) console.log(error.serviceName);
 * }
 * ```
 */
export class ServiceCreationError extends KitError {
  /** What went wrong, as a stable string: `service_creation`. */
  readonly code = "service_creation";

  /** The service that could not be created. */
  readonly serviceName: string;

  /**
   * Creates the error.
   *
   * @param serviceName The service that could not be created.
   * @param cause What its factory threw or rejected with.
   */
  constructor(serviceName: string, cause: unknown) {
    super(
      `Service '${serviceName}' could not be created: ${messageOf(cause)}`,
      { cause },
    );
    this.name = "ServiceCreationError";
    this.serviceName = serviceName;
  }
}
