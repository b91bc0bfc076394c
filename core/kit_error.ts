import { KIT_ERROR_BRAND, markKitError } from "./_error_marks.ts";

/**
 * The base of every error Kit throws or reports. Each one has a stable
 * {@linkcode KitError.code} to branch on, whatever the message's wording
 * (the messages name the key, file or address at fault and may change to
 * say more). Catch it for "anything Kit reported", or tell one error from
 * another with {@linkcode isKitError} and a code. The table of classes and
 * codes is in the errors page of the documentation.
 *
 * A few errors keep the built-in base that code catching them expects
 * (`CircularDependencyError` is a `RangeError`, `LogProviderOptionError` a
 * `TypeError`); they are still Kit errors: `instanceof KitError` and
 * {@linkcode isKitError} accept them. So do errors of another copy of Kit
 * (two bundles of the same package).
 *
 * Application code can extend it too: a subclass sets its `name` and its
 * `code`.
 *
 * @example Usage
 * ```ts
 * import { isKitError, KitError } from "@vendor/kit/core";
 *
 * class QuotaError extends KitError {
 *   readonly code = "quota";
 *   constructor(message: string) {
 *     super(message);
 *     this.name = "QuotaError";
 *   }
 * }
 *
 * const error: unknown = new QuotaError("Upload quota of 10 files reached");
 * if (isKitError(error)) console.log(error.code); // "quota"
 * console.log(error instanceof KitError); // true
 * ```
 */
export abstract class KitError extends Error {
  /**
   * What went wrong, as a stable string (`service_not_found`,
   * `http_timeout`, ...): branch on it rather than on the message.
   */
  abstract readonly code: string;

  /**
   * Creates the error.
   *
   * @param message The message.
   * @param options The cause, if any.
   */
  // `{ cause }` spelt out rather than the standard `ErrorOptions`, which
  // TypeScript's libraries before ES2022 lack: the declarations ship to
  // projects compiled against those too.
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KitError";
  }

  /**
   * `instanceof KitError` holds for every Kit error, including those that
   * keep another built-in base and those of another copy of Kit; for a
   * subclass, `instanceof` works as usual.
   *
   * @param value The value on the left of `instanceof`.
   * @returns Whether the value is an instance.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this === KitError) return isKitError(value);
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

markKitError(KitError);

/**
 * Checks whether a value is a Kit error, and optionally one with the given
 * {@linkcode KitError.code}: with a code, the value's `code` is narrowed to
 * it.
 *
 * @param value The value to check (what a `catch` caught, an `onError`
 * hook's argument).
 * @param code The code it must have, if any.
 * @returns `true` for a Kit error (with that code, when one is given).
 *
 * @example Usage
 * ```ts
 * import { isKitError } from "@vendor/kit/core";
 * import { ServiceLocator } from "@vendor/kit/platform";
 *
 * try {
 *   new ServiceLocator().get("mailer");
 * } catch (error) {
 *   if (isKitError(error, "service_not_found")) {
 *     console.log(error.code); // "service_not_found"
 *   }
 * }
 * ```
 */
export function isKitError<C extends string = string>(
  value: unknown,
  code?: C,
): value is KitError & { readonly code: C } {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { [KIT_ERROR_BRAND]?: unknown; code?: unknown };
  if (candidate[KIT_ERROR_BRAND] !== true) return false;
  if (typeof candidate.code !== "string") return false;
  return code === undefined || candidate.code === code;
}
