/**
 * The runners' backstops: how long a test (or a test file, under Node.js)
 * may run before it fails, with its name, whatever it waits for. They are
 * far above what the slowest test takes on a busy machine (about 30 s here;
 * a whole file, about 70 s), and far below a CI job's limit, so a test that
 * hangs costs minutes, not the job. The tests that wait on something slow
 * give their own, shorter, limits (tests/_support/limits.ts).
 *
 * @module
 */

/**
 * `deno test` (scripts/test_deno.ts): a top-level test that runs longer
 * fails the run. A `describe` block counts as one test there, its `it`
 * steps included.
 */
export const DENO_TEST_LIMIT_MINUTES = 5;

/**
 * `deno test` printing nothing at all for longer than this fails the run
 * too: a test module whose top-level code waits for ever runs no test that
 * could run past its limit.
 */
export const DENO_SILENCE_LIMIT_MINUTES = DENO_TEST_LIMIT_MINUTES + 1;

/**
 * `node --test` (scripts/test_npm.ts): Node.js 20 applies `--test-timeout`
 * to each test file as a whole (and to each test without a limit of its
 * own), so it must hold the longest file on a busy machine: the CLI tests
 * of kit-i18n take about 70 s. The reporter of
 * scripts/_node_limit_reporter.ts names the test that was running when a
 * file ran out of time.
 */
export const NODE_FILE_LIMIT_MS = 10 * 60_000;

/**
 * `bun test --timeout` (scripts/test_npm.ts): each test, and each hook
 * (Bun gives hooks no limit of their own), without a limit of its own.
 */
export const BUN_TEST_LIMIT_MS = 3 * 60_000;
