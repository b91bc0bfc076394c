/**
 * A reporter for `node --test` (scripts/test_npm.ts gives it beside the TAP
 * reporter) that names the test a file was running when the file ran out
 * of time. Node.js 20 applies `--test-timeout` to each file as a whole, and
 * its report of a file past the limit names the file only; this one follows
 * which tests start and end, and for such a file prints, as a TAP comment:
 *
 * ```text
 * # TIMED OUT: tests/esm/http/fake_clock_test.js ran past its limit of 300 s while running: HttpClient with a FakeClock > waits a Retry-After on the clock
 * ```
 *
 * Plain JavaScript once transpiled: Node.js loads it by its path.
 *
 * @module
 */

/** The part of a test event this reporter reads. */
interface TestEvent {
  type: string;
  data?: {
    name?: string;
    nesting?: number;
    file?: string;
    details?: { error?: { failureType?: string; message?: string } };
  };
}

/**
 * Reads the runner's events; yields a line for each file that ran past its
 * limit, naming the tests it was running (outermost first).
 *
 * @param source The events of `node --test`.
 * @returns The lines to print.
 */
export default async function* nameTimedOutTests(
  source: AsyncIterable<TestEvent>,
): AsyncGenerator<string> {
  // Per file: the name of the test running at each nesting level.
  const running = new Map<string, string[]>();
  for await (const event of source) {
    const { name, nesting = 0, file } = event.data ?? {};
    if (file === undefined || name === undefined) continue;
    if (event.type === "test:dequeue") {
      // A file itself is the test at nesting 0, named by its path.
      if (name === file) continue;
      const stack = running.get(file) ?? [];
      stack.length = nesting;
      stack.push(name);
      running.set(file, stack);
    } else if (event.type === "test:complete") {
      const stack = running.get(file);
      if (stack !== undefined && stack[nesting] === name) {
        stack.length = nesting;
      }
    } else if (
      event.type === "test:fail" && name === file &&
      event.data?.details?.error?.failureType === "testTimeoutFailure"
    ) {
      const stack = running.get(file) ?? [];
      const where = stack.length === 0
        ? "before any of its tests started (its top-level code was running)"
        : `while running: ${stack.join(" > ")}`;
      const limit = /after (\d+)ms/.exec(
        event.data?.details?.error?.message ?? "",
      )?.[1];
      yield `# TIMED OUT: ${file} ran past its limit${
        limit === undefined ? "" : ` of ${Number(limit) / 1000} s`
      } ${where}\n`;
    }
  }
}
