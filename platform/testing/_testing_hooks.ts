// How `@vendor/kit-platform/testing` asks the application host to serve in
// memory: a key in the start-up options, read by Application's #listen. The
// key comes from the process-wide symbol registry because the npm package
// bundles the testing entry apart from the main one: both copies of this
// file must name the same key.

/** The key of the test hooks in the options given to Application.start. */
export const TEST_HOOKS: unique symbol = Symbol.for(
  "@vendor/kit-platform/testing/hooks",
);

/** What a test application asks of the host's server. */
export interface TestHooks {
  /** Listen on a port too (else the server is in memory only). */
  readonly listen: boolean;
  /**
   * Receives the server's handler (probes, body limit, request context),
   * once start-up made it.
   */
  served(fetch: (request: Request) => Promise<Response>): void;
}

/** The test hooks among the start-up options, if any. */
export function testHooksOf(options: object): TestHooks | undefined {
  return (options as { [TEST_HOOKS]?: TestHooks })[TEST_HOOKS];
}
