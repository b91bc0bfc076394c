import { test } from "node:test";
import assert from "node:assert/strict";
import { Signal } from "../../platform/mod.ts";

test("Signal.dispatch() calls handlers in the order they were added", () => {
  const signal = new Signal<string>();
  const seen: string[] = [];
  signal.add((v) => void seen.push(`a:${v}`));
  signal.add((v) => void seen.push(`b:${v}`));
  signal.dispatch("fr-FR");
  assert.deepEqual(seen, ["a:fr-FR", "b:fr-FR"]);
  assert.equal(signal.size, 2);
});

test("Signal.add() returns a remover; calling it twice is harmless", () => {
  const signal = new Signal<number>();
  let calls = 0;
  const remove = signal.add(() => void calls++);
  signal.dispatch(1);
  remove();
  remove();
  signal.dispatch(2);
  assert.equal(calls, 1);
  assert.equal(signal.size, 0);
});

test("Signal.add() of the same handler twice attaches it once", () => {
  const signal = new Signal<number>();
  let calls = 0;
  const handler = (): void => void calls++;
  signal.add(handler);
  signal.add(handler);
  signal.dispatch(1);
  assert.equal(calls, 1);
  assert.equal(signal.size, 1);
});

test("Signal.remove() detaches a handler and reports whether it was attached", () => {
  const signal = new Signal<number>();
  const handler = (): void => {};
  signal.add(handler);
  assert.equal(signal.remove(handler), true);
  assert.equal(signal.remove(handler), false);
});

test("Signal.clear() detaches every handler", () => {
  const signal = new Signal<number>();
  let calls = 0;
  signal.add(() => void calls++);
  signal.add(() => void calls++);
  signal.clear();
  signal.dispatch(1);
  assert.equal(calls, 0);
  assert.equal(signal.size, 0);
});

test("Signal: a handler removed during dispatch is skipped, one added is not called", () => {
  const signal = new Signal<number>();
  const seen: string[] = [];
  const second = (): void => void seen.push("second");
  signal.add(() => {
    seen.push("first");
    signal.remove(second);
    signal.add(() => void seen.push("late"));
  });
  signal.add(second);
  signal.dispatch(1);
  assert.deepEqual(seen, ["first"]);
  signal.dispatch(2);
  assert.deepEqual(seen, ["first", "first", "late"]);
});

test("Signal: a throwing handler does not stop the others and reaches onError", async () => {
  const errors: unknown[] = [];
  const signal = new Signal<number>({
    onError: (error) => void errors.push(error),
  });
  let reached = false;
  signal.add(() => {
    throw new Error("sync");
  });
  signal.add(async () => {
    await Promise.resolve();
    throw new Error("async");
  });
  signal.add(() => {
    reached = true;
  });
  signal.dispatch(1);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(reached, true);
  assert.deepEqual(errors.map((e) => (e as Error).message), ["sync", "async"]);
});

test("Signal<void> dispatches without a value", () => {
  const signal = new Signal();
  let calls = 0;
  signal.add(() => void calls++);
  signal.dispatch();
  assert.equal(calls, 1);
});

test("Signal.add() rejects a handler that is not a function", () => {
  const signal = new Signal();
  assert.throws(
    () => signal.add(undefined as unknown as () => void),
    TypeError,
  );
});
