// Waiting in tests: a plain delay, and polling a condition until it holds or
// a deadline passes. Every fixture and test that waits for something to
// happen (a server answering, a request arriving, a replica in sync) polls
// through `waitFor`, so a condition that never comes fails with its name
// instead of hanging the run.

/** Waits `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until `condition()` holds, polling every `interval` ms; fails naming
 * `what` once `timeout` ms have passed.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 10_000,
  interval = 10,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeout}ms waiting for ${what}`);
    }
    await delay(interval);
  }
}
