import { markKitError } from "../../internal/error_marks.ts";

/**
 * Thrown when creating a service needs that same service, directly or
 * through others. It is a `RangeError`, the error such a recursion would end
 * in (`Maximum call stack size exceeded`), so code that catches that keeps
 * working; but it is thrown at once, and its message names the whole
 * resolution chain, for example `Circular dependency detected: a -> b -> a`.
 *
 * @example Usage
 * ```ts
 * import { CircularDependencyError, ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.register("a", (l) => l.get("b"));
 * locator.register("b", (l) => l.get("a"));
 * try {
 *   locator.get("a");
 * } catch (error) {
 *   if (error instanceof CircularDependencyError) {
 *     console.log(error instanceof RangeError); // true
 *     console.log(error.chain); // ["a", "b", "a"]
 *   }
 * }
 * ```
 */
export class CircularDependencyError extends RangeError {
  /** What went wrong, as a stable string: `circular_dependency`. */
  readonly code = "circular_dependency";

  /** The names in the order they were being created, the repeated one last. */
  readonly chain: readonly string[];

  /**
   * Creates the error.
   *
   * @param chain The resolution chain, ending with the name seen twice.
   */
  constructor(chain: readonly string[]) {
    super(`Circular dependency detected: ${chain.join(" -> ")}`);
    this.name = "CircularDependencyError";
    this.chain = chain;
  }
}

// It keeps its built-in base; the mark makes it a KitError all the same.
markKitError(CircularDependencyError);
