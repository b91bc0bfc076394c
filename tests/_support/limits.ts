// Explicit time limits for the tests that wait on something outside their
// own code: a Redis failover, a reconnect after an outage the test makes, a
// child process (a runtime started on a script, a CLI, a build, a browser).
// Each limit is far above what such a wait takes on a busy machine, and
// below the runners' own backstops (scripts/_test_limits.ts), so a wait that
// never ends fails the test that started it, with its name, under deno test,
// node --test and Bun alike: all three honour node:test's `timeout` option.
//
// A file whose tests all wait that way declares them through `limited`:
//
//   import { test as nodeTest } from "node:test";
//   import { FAILOVER_LIMIT, limited } from "../_support/limits.ts";
//   const test = limited(nodeTest, FAILOVER_LIMIT);
//
// A test that gives its own `timeout` keeps it. The runners report the line
// of this helper as where such a test is declared; its name, and the stack
// of its failure, point at the test file. A limit is a timer while the test
// runs: a test that counts the active timers (assertNothingLeft) is
// declared without one.

/**
 * A Redis Sentinel or Cluster failover, and the writes and reads around it:
 * about 5 s here, three times that on a busy machine.
 */
export const FAILOVER_LIMIT = 120_000;

/**
 * A reconnect after an outage the test makes (a Redis paused, stopped or
 * killed, then back), or a topology's discovery: a few seconds at most.
 */
export const RECONNECT_LIMIT = 60_000;

/**
 * Child processes the test starts and waits for: a runtime on a script, a
 * CLI, a build, a browser. The slowest (a project generated, installed and
 * type-checked) take about 30 s here.
 */
export const CHILD_PROCESS_LIMIT = 180_000;

/** `test`, `it` or one of their `skip`, `only` and `todo` forms. */
type Declare = (...args: never[]) => unknown;

/**
 * `declare` (node:test's `test` or `it`) giving each test it declares the
 * limit `timeout`, unless the test gives its own; `.skip`, `.only` and
 * `.todo` too.
 */
export function limited<T extends Declare>(declare: T, timeout: number): T {
  const bind = (inner: Declare): Declare => (...args: never[]) => {
    // node:test takes (name?, options?, fn?): the options are the one
    // argument that is an object and not the function.
    const list: unknown[] = [...args];
    const at = list.findIndex((arg) => typeof arg === "object" && arg !== null);
    if (at === -1) {
      list.splice(typeof list[0] === "string" ? 1 : 0, 0, { timeout });
    } else if ((list[at] as { timeout?: number }).timeout === undefined) {
      list[at] = { ...(list[at] as object), timeout };
    }
    return inner(...(list as never[]));
  };
  const bound = bind(declare) as Declare & Record<string, unknown>;
  for (const form of ["skip", "only", "todo"]) {
    const inner = (declare as unknown as Record<string, unknown>)[form];
    if (typeof inner === "function") {
      bound[form] = bind((inner as Declare).bind(declare));
    }
  }
  return bound as unknown as T;
}
