// The configuration a test gives (`{ "api:baseUrl": "…" }`) layered above
// what the configuration step built. Duck-typed, as platform does not depend
// on the config module: a ConfigurationManager gets one more source, above
// every other, and loads again (so a schema still validates); a plain
// object gets the values set along each colon path, on copies, so an
// object shared between tests is never changed.

import { AsyncLocalStorage } from "node:async_hooks";
import {
  type TestConfiguration,
  testConfigurationSlot,
} from "../../internal/settings/test_configuration.ts";

// The values of the configuration step running now, for the configuration
// package's ConfigurationManager to add before its first validation.
const slot = testConfigurationSlot(() => {
  const storage = new AsyncLocalStorage<TestConfiguration>();
  return {
    current: () => storage.getStore(),
    run: <R>(values: TestConfiguration, fn: () => R): R =>
      storage.run(values, fn),
  };
});

/**
 * Runs a configuration step with the test's values in its context: a
 * ConfigurationManager that loads there takes them as its first-priority
 * source (and notes it in `values.given`).
 */
export function runWithTestConfiguration<R>(
  values: TestConfiguration,
  fn: () => R,
): R {
  return slot.run(values, fn);
}

// Above MemoryProvider's priority and any other source's.
const PRIORITY = Number.MAX_SAFE_INTEGER;

// A ConfigurationManager as seen from here.
interface ManagerLike {
  addProvider(provider: {
    name: string;
    priority: number;
    load(): { key: string; value: unknown }[];
  }): unknown;
  loadConfiguration(): Promise<void>;
}

function isManagerLike(value: unknown): value is ManagerLike {
  if (value === null || typeof value !== "object") return false;
  const manager = value as Partial<ManagerLike>;
  return typeof manager.addProvider === "function" &&
    typeof manager.loadConfiguration === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return false;
  }
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return `an instance of ${value.constructor?.name ?? "an unnamed class"}`;
}

const UNSAFE = new Set(["__proto__", "prototype", "constructor"]);

export function checkKey(key: string): string[] {
  const parts = key.split(":");
  if (key === "" || parts.some((part) => part === "")) {
    throw new TypeError(
      `createTestApplication: the configuration key '${key}' is not a colon path such as "api:baseUrl"`,
    );
  }
  const unsafe = parts.find((part) => UNSAFE.has(part));
  if (unsafe !== undefined) {
    throw new TypeError(
      `createTestApplication: the configuration key '${key}' uses '${unsafe}', which is not allowed in a key`,
    );
  }
  return parts;
}

/**
 * The configuration with `values` above it: the same manager (one more
 * source, loaded), or a copy of a plain object.
 *
 * @throws {TypeError} When the configuration is neither, or a key is bad.
 */
export async function layerConfiguration(
  config: unknown,
  values: Readonly<Record<string, unknown>>,
  given?: WeakSet<object>,
): Promise<unknown> {
  const entries = Object.entries(values);
  for (const [key] of entries) checkKey(key);
  if (entries.length === 0) return config;
  if (isManagerLike(config)) {
    // It took them while it loaded in the step.
    if (given?.has(config)) return config;
    await config.addProvider({
      name: "createTestApplication config",
      priority: PRIORITY,
      load: () => entries.map(([key, value]) => ({ key, value })),
    });
    await config.loadConfiguration();
    return config;
  }
  if (config !== undefined && !isPlainObject(config)) {
    throw new TypeError(
      `createTestApplication: the config option needs the configuration step to return a ConfigurationManager (anything with addProvider and loadConfiguration) or a plain object, but it returned ${
        describe(config)
      }; set the values in the configuration step instead`,
    );
  }
  const root: Record<string, unknown> = { ...config };
  for (const [key, value] of entries) {
    const parts = checkKey(key);
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      node = node[part] = isPlainObject(next) ? { ...next } : {};
    }
    node[parts[parts.length - 1]] = value;
  }
  return root;
}
