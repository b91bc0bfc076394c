/**
 * Thrown by {@linkcode ServiceLocator.get} for a name that was never
 * registered. The first line of the message is exactly
 * `Service not found: <name>` (spec §4.2); when registered names look close,
 * a second line suggests them.
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
export class ServiceNotFoundError extends Error {
  /** The name that was asked for. */
  readonly serviceName: string;
  /** Registered names that look close to {@linkcode serviceName}. */
  readonly suggestions: readonly string[];

  /**
   * Creates the error.
   *
   * @param serviceName The name that was asked for.
   * @param suggestions Close matches among the registered names.
   */
  constructor(serviceName: string, suggestions: readonly string[] = []) {
    super(
      `Service not found: ${serviceName}` +
        (suggestions.length > 0
          ? `\nDid you mean: ${suggestions.join(", ")}?`
          : ""),
    );
    this.name = "ServiceNotFoundError";
    this.serviceName = serviceName;
    this.suggestions = suggestions;
  }
}
