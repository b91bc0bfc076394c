import { test } from "node:test";
import assert from "node:assert/strict";
import { ServiceLocator } from "../../platform/mod.ts";

test("ServiceLocator.dispose() disposes created services in reverse creation order", async () => {
  const locator = new ServiceLocator();
  const order: string[] = [];
  locator.register("db", () => ({ dispose: () => void order.push("db") }));
  locator.register("repo", (l) => {
    l.get("db");
    return { dispose: () => void order.push("repo") };
  });
  locator.register("api", (l) => {
    l.get("repo");
    return { dispose: () => void order.push("api") };
  });
  locator.get("api"); // creates db, then repo, then api
  locator.register(
    "never",
    () => ({ dispose: () => void order.push("never") }),
  );
  await locator.dispose();
  assert.deepEqual(order, ["api", "repo", "db"]);
});

test("ServiceLocator.dispose() prefers Symbol.asyncDispose, then Symbol.dispose, then dispose()", async () => {
  const locator = new ServiceLocator();
  const calls: string[] = [];
  locator.register("async", () => ({
    async [Symbol.asyncDispose]() {
      await Promise.resolve();
      calls.push("asyncDispose");
    },
    dispose() {
      calls.push("wrong: dispose on async");
    },
  }));
  locator.register("sync", () => ({
    [Symbol.dispose]() {
      calls.push("dispose symbol");
    },
    dispose() {
      calls.push("wrong: dispose on sync");
    },
  }));
  locator.register("plain", () => ({
    dispose() {
      calls.push("dispose()");
    },
  }));
  locator.get("plain");
  locator.get("sync");
  locator.get("async");
  await locator.dispose();
  assert.deepEqual(calls, ["asyncDispose", "dispose symbol", "dispose()"]);
});

test("ServiceLocator.dispose() gives every service its turn and aggregates errors", async () => {
  const locator = new ServiceLocator();
  const disposed: string[] = [];
  locator.register("a", () => ({ dispose: () => void disposed.push("a") }));
  locator.register("b", () => ({
    dispose() {
      disposed.push("b");
      throw new Error("b failed");
    },
  }));
  locator.register("c", () => ({
    async dispose() {
      disposed.push("c");
      await Promise.resolve();
      throw new Error("c failed");
    },
  }));
  locator.get("a");
  locator.get("b");
  locator.get("c");
  await assert.rejects(locator.dispose(), (error: unknown) => {
    assert.ok(error instanceof AggregateError);
    assert.equal(error.message, "Failed to dispose 2 service(s): c, b");
    assert.deepEqual(
      error.errors.map((e: Error) => e.message),
      ["c failed", "b failed"],
    );
    return true;
  });
  assert.deepEqual(disposed, ["c", "b", "a"]);
});

test("ServiceLocator.dispose() leaves registered instances alone and recreates services afterwards", async () => {
  const locator = new ServiceLocator();
  let disposedExternal = false;
  let created = 0;
  locator.registerInstance("external", {
    dispose() {
      disposedExternal = true;
    },
  });
  locator.register("owned", () => {
    created++;
    return { dispose() {} };
  });
  const first = locator.get("owned");
  await locator.dispose();
  assert.equal(disposedExternal, false);
  assert.equal(locator.has("external"), true);
  const second = locator.get("owned");
  assert.notEqual(first, second, "a disposed service is not handed out again");
  assert.equal(created, 2);
});

test("ServiceLocator.dispose() waits for creations in flight and disposes them too", async () => {
  const locator = new ServiceLocator();
  const disposed: string[] = [];
  locator.register("slow", async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { dispose: () => void disposed.push("slow") };
  });
  const pending = locator.getAsync("slow");
  await locator.dispose();
  await pending;
  assert.deepEqual(disposed, ["slow"]);
});

test("ServiceLocator supports await using", async () => {
  const disposed: string[] = [];
  {
    await using locator = new ServiceLocator();
    locator.register(
      "conn",
      () => ({ dispose: () => void disposed.push("conn") }),
    );
    locator.get("conn");
    assert.deepEqual(disposed, []);
  }
  assert.deepEqual(disposed, ["conn"]);
});

test("ServiceLocator.dispose() static form disposes the default locator", async () => {
  ServiceLocator.reset();
  try {
    let disposed = false;
    ServiceLocator.register("x", () => ({
      dispose() {
        disposed = true;
      },
    }));
    ServiceLocator.get("x");
    await ServiceLocator.dispose();
    assert.equal(disposed, true);
  } finally {
    ServiceLocator.reset();
  }
});
