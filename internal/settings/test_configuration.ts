// The configuration values a test gives createTestApplication (the test
// kit, in the platform package) reach the ConfigurationManager its
// configuration step builds (the configuration package) before that
// manager first validates, so a test can supply a required setting. The
// two packages share no module, so the values travel through a registered
// symbol of globalThis, scoped to the step by the test kit's async context.

/** The values of one test application, and the managers that took them. */
export interface TestConfiguration {
  /** Values by colon path. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The managers that added them as a source already. */
  readonly given: WeakSet<object>;
}

/** Where the test kit keeps the values of the step running now. */
export interface TestConfigurationSlot {
  /** The values of the configuration step running in this context. */
  current(): TestConfiguration | undefined;
}

const KEY = Symbol.for("@vendor/kit/testing.configuration");

/**
 * The values of the test application whose configuration step runs in the
 * current async context, if any.
 *
 * @returns The values, or `undefined` outside a test kit's step.
 *
 * @example Usage
 * ```ts
 * import { currentTestConfiguration } from "./test_configuration.ts";
 *
 * console.log(currentTestConfiguration()); // undefined
 * ```
 */
export function currentTestConfiguration(): TestConfiguration | undefined {
  return (globalThis as { [KEY]?: TestConfigurationSlot })[KEY]?.current();
}

/**
 * Installs the slot (the test kit does it once per process).
 *
 * @param make Makes the slot when none is installed.
 * @returns The installed slot.
 *
 * @example Usage
 * ```ts
 * import { testConfigurationSlot } from "./test_configuration.ts";
 *
 * const slot = testConfigurationSlot(() => ({ current: () => undefined }));
 * console.log(slot.current()); // undefined
 * ```
 */
export function testConfigurationSlot<S extends TestConfigurationSlot>(
  make: () => S,
): S {
  const holder = globalThis as { [KEY]?: S };
  return holder[KEY] ??= make();
}
