import { CacheError } from "./cache_error.ts";

/**
 * Thrown (as a rejection of `getOrSet`) when `options.policy` names a policy
 * that was never given to {@linkcode CacheManager.setPolicy}. The message is
 * exactly `Cache policy not found: <name>`.
 *
 * @example Usage
 * ```ts
 * import { CachePolicyNotFoundError } from "@vendor/kit/caching";
 *
 * console.log(new CachePolicyNotFoundError("products").message);
 * ```
 */
export class CachePolicyNotFoundError extends CacheError {
  /** What went wrong, as a stable string: `cache_policy_not_found`. */
  override readonly code = "cache_policy_not_found";

  /** The name that was asked for. */
  readonly policyName: string;

  /**
   * Creates the error.
   *
   * @param policyName The unknown name.
   */
  constructor(policyName: string) {
    super(`Cache policy not found: ${policyName}`);
    this.name = "CachePolicyNotFoundError";
    this.policyName = policyName;
  }
}
