// Overrides of a test application: each replaces a registered service after
// step 4, keeping the lifetime and the eager or hosted option of the
// registration it replaces. The locator has no public way to read a
// registration's options, so they are noted as the steps register.
import type { ServiceLocator, ServiceRegistrationOptions } from "../mod.ts";
import { suggest } from "../locator/_suggest.ts";

type Register = (
  name: string,
  factory: unknown,
  options?: ServiceRegistrationOptions,
) => unknown;

/** Notes the options of every registration until `stop()`. */
export function noteRegistrations(locator: ServiceLocator<object>): {
  options: Map<string, ServiceRegistrationOptions | undefined>;
  stop(): void;
} {
  const options = new Map<string, ServiceRegistrationOptions | undefined>();
  const target = locator as unknown as { register: Register };
  const own = Object.prototype.hasOwnProperty.call(target, "register");
  const original = target.register;
  target.register = function (name, factory, given): unknown {
    options.set(name, given === undefined ? undefined : { ...given });
    return original.call(this, name, factory, given);
  };
  return {
    options,
    stop(): void {
      if (own) target.register = original;
      else delete (target as Partial<{ register: Register }>).register;
    },
  };
}

/**
 * Replaces each named service with its override.
 *
 * @throws {Error} Naming an override for which nothing is registered.
 */
export function applyOverrides(
  locator: ServiceLocator<object>,
  overrides: Readonly<Record<string, unknown>>,
  noted: ReadonlyMap<string, ServiceRegistrationOptions | undefined>,
): void {
  const names = Object.keys(overrides);
  const eager = new Map(locator.eagerServices());
  for (const name of names) {
    if (typeof overrides[name] !== "function") {
      throw new TypeError(
        `createTestApplication: the override of '${name}' must be a factory (services) => service, not ${
          overrides[name] === null ? "null" : typeof overrides[name]
        }`,
      );
    }
    if (!locator.has(name)) {
      const known = [...noted.keys()].filter((known) => locator.has(known));
      const close = suggest(name, known);
      throw new Error(
        `createTestApplication: cannot override '${name}': no service of that name is registered${
          close.length > 0 ? ` (did you mean '${close.join("', '")}'?)` : ""
        }; overrides replace services registered by the steps`,
      );
    }
  }
  for (const name of names) {
    const options = { ...noted.get(name), ...eager.get(name) };
    (locator as unknown as { register: Register }).register(
      name,
      overrides[name],
      options,
    );
  }
}
