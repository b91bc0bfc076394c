import { KitError } from "../../core/mod.ts";

/**
 * Why a scoped service could not be resolved:
 * - `"no-scope"`: it was asked for outside any scope;
 * - `"disposed"`: through a scope that has been disposed;
 * - `"ended"`: in a request whose response was already returned;
 * - `"captive"`: by a singleton or transient service, which would keep one
 *   scope's instance after that scope is disposed.
 *
 * @example Usage
 * ```ts
 * import type { ServiceLifetimeProblem } from "@vendor/kit/platform";
 *
 * const problem: ServiceLifetimeProblem = "captive";
 * ```
 */
export type ServiceLifetimeProblem =
  | "no-scope"
  | "disposed"
  | "ended"
  | "captive";

/**
 * Thrown when a service registered with `{ lifetime: "scoped" }` is asked
 * for where no scope can give it: outside any scope, through a disposed
 * scope, after the request's response, or by a singleton or transient
 * service (a captive dependency, which would outlive the scope). The message
 * names the service, the one that depends on it for a captive dependency,
 * and says what to do.
 *
 * @example Usage
 * ```ts
 * import { ServiceLifetimeError, ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.register("db", () => ({}), { lifetime: "scoped" });
 * try {
 *   locator.get("db");
 * } catch (error) {
 *   if (error instanceof ServiceLifetimeError) {
 *     console.log(error.serviceName, error.problem); // "db" "no-scope"
 *   }
 * }
 * ```
 */
export class ServiceLifetimeError extends KitError {
  /** What went wrong, as a stable string: `service_lifetime`. */
  readonly code = "service_lifetime";

  /** The scoped service that was asked for. */
  readonly serviceName: string;
  /** For a captive dependency: the service that asked for it. */
  readonly dependentName: string | undefined;
  /** What went wrong. */
  readonly problem: ServiceLifetimeProblem;

  /**
   * Creates the error.
   *
   * @param problem What went wrong.
   * @param serviceName The scoped service that was asked for.
   * @param dependent For `"captive"`: the service that asked for it and its
   * lifetime.
   */
  constructor(
    problem: ServiceLifetimeProblem,
    serviceName: string,
    dependent?: { name: string; lifetime: "singleton" | "transient" },
  ) {
    super(messageOf(problem, serviceName, dependent));
    this.name = "ServiceLifetimeError";
    this.problem = problem;
    this.serviceName = serviceName;
    this.dependentName = dependent?.name;
  }
}

function messageOf(
  problem: ServiceLifetimeProblem,
  name: string,
  dependent?: { name: string; lifetime: string },
): string {
  switch (problem) {
    case "captive":
      return `Service '${dependent?.name}' (${dependent?.lifetime}) cannot ` +
        `depend on scoped service '${name}': it would keep one scope's ` +
        `instance after that scope is disposed. Register ` +
        `'${dependent?.name}' as scoped, or '${name}' as a singleton or ` +
        `transient.`;
    case "disposed":
      return `Service '${name}' is scoped and its scope has been disposed: ` +
        `make a new scope with services.createScope().`;
    case "ended":
      return `Service '${name}' is scoped and its request has ended: ` +
        `resolve scoped services before the handler returns its response ` +
        `(a streamed body may keep using the ones it resolved before).`;
    default:
      return `Service '${name}' is scoped: it can only be resolved inside a ` +
        `scope. Resolve it while handling a request through app.handle(), ` +
        `or inside a scope made with services.createScope() (scope.get() ` +
        `or scope.run()), or register it as a singleton or transient.`;
  }
}
