import { KitError } from "../../core/mod.ts";

/**
 * Thrown by {@linkcode ServiceLocator.get} for a name that was never
 * registered. The first line of the message is exactly
 * `Service not found: <name>`. When it was asked for by a service's factory,
 * the next line names that service (`Asked for while creating "users"`);
 * when registered names look close, a last line suggests them.
 *
 * @example Usage
 * ```ts
 * import { ServiceLocator, ServiceNotFoundError } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * try {
 *   locator.get("config");
 * } catch (error) {
 *   if (error instanceof ServiceNotFoundError) console.log(error.serviceName);
 * }
 * ```
 */
export class ServiceNotFoundError extends KitError {
  /** What went wrong, as a stable string: `service_not_found`. */
  readonly code = "service_not_found";

  /** The name that was asked for. */
  readonly serviceName: string;
  /** Registered names that look close to {@linkcode serviceName}. */
  readonly suggestions: readonly string[];
  /**
   * The services being created when the name was asked for, outermost
   * first (`["app", "users"]`: creating `users` for `app`); empty when it
   * was asked for directly.
   */
  readonly creating: readonly string[];

  /**
   * Creates the error.
   *
   * @param serviceName The name that was asked for.
   * @param suggestions Close matches among the registered names.
   * @param creating The services being created when it was asked for,
   * outermost first.
   */
  constructor(
    serviceName: string,
    suggestions: readonly string[] = [],
    creating: readonly string[] = [],
  ) {
    const requester = creating.at(-1);
    super(
      `Service not found: ${serviceName}` +
        (requester === undefined
          ? ""
          : `\nAsked for while creating ${JSON.stringify(requester)}${
            creating.length > 1
              ? ` (${[...creating, serviceName].join(" → ")})`
              : ""
          }; register ${
            JSON.stringify(serviceName)
          }, or correct the name in the factory of ${
            JSON.stringify(requester)
          }.`) +
        (suggestions.length > 0
          ? `\nDid you mean: ${suggestions.join(", ")}?`
          : ""),
    );
    this.name = "ServiceNotFoundError";
    this.serviceName = serviceName;
    this.suggestions = suggestions;
    this.creating = [...creating];
  }
}
