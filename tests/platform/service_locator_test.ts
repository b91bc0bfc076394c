import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AsyncServiceError,
  CircularDependencyError,
  ServiceLocator,
  ServiceNotFoundError,
} from "../../platform/mod.ts";

test("ServiceLocator.get() creates a service lazily, once, and caches it", () => {
  const locator = new ServiceLocator();
  let calls = 0;
  locator.register("counter", () => {
    calls++;
    return { id: calls };
  });
  assert.equal(calls, 0, "registering must not create the service");
  const first = locator.get<{ id: number }>("counter");
  const second = locator.get<{ id: number }>("counter");
  assert.equal(calls, 1);
  assert.equal(first, second);
  assert.equal(first.id, 1);
});

test("ServiceLocator factories receive the locator to get their dependencies", () => {
  const locator = new ServiceLocator();
  locator.register("url", () => "postgres://db");
  locator.register("db", (l) => ({ url: l.get<string>("url") }));
  assert.deepEqual(locator.get("db"), { url: "postgres://db" });
});

test("ServiceLocator.get() throws 'Service not found: <name>' for an unknown name", () => {
  const locator = new ServiceLocator();
  assert.throws(() => locator.get("config"), (error: unknown) => {
    assert.ok(error instanceof ServiceNotFoundError);
    assert.ok(error instanceof Error);
    assert.equal(error.message, "Service not found: config");
    assert.equal(error.serviceName, "config");
    assert.deepEqual(error.suggestions, []);
    return true;
  });
});

test("ServiceLocator.get() suggests close names on a second line only", () => {
  const locator = new ServiceLocator();
  locator.register("configuration", () => 1);
  locator.register("userService", () => 2);
  locator.registerInstance("logger", 3);
  assert.throws(() => locator.get("userservice"), (error: unknown) => {
    assert.ok(error instanceof ServiceNotFoundError);
    const [first, second, ...rest] = error.message.split("\n");
    assert.equal(first, "Service not found: userservice");
    assert.equal(second, "Did you mean: userService?");
    assert.equal(rest.length, 0);
    return true;
  });
  assert.throws(
    () => locator.get("loger"),
    { message: "Service not found: loger\nDid you mean: logger?" },
  );
  assert.throws(() => locator.get("zzz"), {
    message: "Service not found: zzz",
  });
});

test("ServiceLocator.get() suggests each close name once, created or not", () => {
  const locator = new ServiceLocator();
  locator.register("users", () => ({}));
  locator.get("users");
  assert.throws(() => locator.get("usres"), {
    message: "Service not found: usres\nDid you mean: users?",
  });
});

test("ServiceLocator detects a service that needs itself (chain of 1)", () => {
  const locator = new ServiceLocator();
  locator.register("a", (l) => l.get("a"));
  assert.throws(() => locator.get("a"), (error: unknown) => {
    assert.ok(error instanceof CircularDependencyError);
    // The error the recursion would have ended in, with the chain named.
    assert.ok(error instanceof RangeError);
    assert.equal(error.message, "Circular dependency detected: a -> a");
    assert.deepEqual(error.chain, ["a", "a"]);
    return true;
  });
});

test("ServiceLocator detects a cycle of two services", () => {
  const locator = new ServiceLocator();
  locator.register("a", (l) => l.get("b"));
  locator.register("b", (l) => l.get("a"));
  assert.throws(() => locator.get("a"), {
    name: "CircularDependencyError",
    message: "Circular dependency detected: a -> b -> a",
  });
  assert.throws(() => locator.get("b"), {
    message: "Circular dependency detected: b -> a -> b",
  });
});

test("ServiceLocator detects a cycle of three and names the whole chain", () => {
  const locator = new ServiceLocator();
  locator.register("root", (l) => l.get("a"));
  locator.register("a", (l) => l.get("b"));
  locator.register("b", (l) => l.get("c"));
  locator.register("c", (l) => l.get("a"));
  assert.throws(() => locator.get("root"), {
    message: "Circular dependency detected: root -> a -> b -> c -> a",
  });
});

test("ServiceLocator detects cycles through the static API used inside factories", () => {
  ServiceLocator.reset();
  try {
    ServiceLocator.register("a", () => ServiceLocator.get("b"));
    ServiceLocator.register("b", () => ServiceLocator.get("a"));
    assert.throws(() => ServiceLocator.get("a"), {
      message: "Circular dependency detected: a -> b -> a",
    });
  } finally {
    ServiceLocator.reset();
  }
});

test("ServiceLocator recovers after a cycle error: a fixed registration works", () => {
  const locator = new ServiceLocator();
  locator.register("a", (l) => l.get("b"));
  locator.register("b", (l) => l.get("a"));
  assert.throws(() => locator.get("a"), CircularDependencyError);
  locator.register("b", () => "b");
  assert.equal(locator.get("a"), "b");
});

test("ServiceLocator does not cache a factory that throws", () => {
  const locator = new ServiceLocator();
  let attempts = 0;
  locator.register("flaky", () => {
    attempts++;
    if (attempts === 1) throw new Error("boom");
    return "ok";
  });
  assert.throws(() => locator.get("flaky"), /boom/);
  assert.equal(locator.get("flaky"), "ok");
  assert.equal(attempts, 2);
});

test("ServiceLocator.getAsync() awaits an async factory and caches the result", async () => {
  const locator = new ServiceLocator();
  locator.register("db", async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { connected: true };
  });
  const db = await locator.getAsync<{ connected: boolean }>("db");
  assert.deepEqual(db, { connected: true });
  assert.equal(locator.get("db"), db, "get() returns it once created");
  assert.equal(await locator.getAsync("db"), db);
});

test("ServiceLocator.getAsync() shares one creation between concurrent first requests", async () => {
  const locator = new ServiceLocator();
  let calls = 0;
  locator.register("slow", async () => {
    calls++;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { n: calls };
  });
  const results = await Promise.all(
    Array.from({ length: 20 }, () => locator.getAsync("slow")),
  );
  assert.equal(calls, 1);
  for (const result of results) assert.equal(result, results[0]);
});

test("ServiceLocator.getAsync() does not cache a failed creation", async () => {
  const locator = new ServiceLocator();
  let attempts = 0;
  locator.register("remote", async () => {
    attempts++;
    await Promise.resolve();
    if (attempts === 1) throw new Error("unreachable");
    return "connected";
  });
  const [a, b] = await Promise.allSettled([
    locator.getAsync("remote"),
    locator.getAsync("remote"),
  ]);
  assert.equal(a.status, "rejected");
  assert.equal(
    b.status,
    "rejected",
    "the concurrent request shares the failure",
  );
  assert.equal(await locator.getAsync("remote"), "connected");
  assert.equal(attempts, 2);
});

test("ServiceLocator.getAsync() works for sync factories and rejects unknown names", async () => {
  const locator = new ServiceLocator();
  locator.register("sync", () => 42);
  assert.equal(await locator.getAsync("sync"), 42);
  await assert.rejects(locator.getAsync("missing"), {
    message: "Service not found: missing",
  });
});

test("ServiceLocator.getAsync() detects a cycle between async factories", async () => {
  const locator = new ServiceLocator();
  locator.register("a", async (l) => {
    await Promise.resolve();
    return await l.getAsync("b");
  });
  locator.register("b", async (l) => {
    await Promise.resolve();
    return await l.getAsync("a");
  });
  await assert.rejects(locator.getAsync("a"), {
    name: "CircularDependencyError",
    message: "Circular dependency detected: a -> b -> a",
  });
});

test("ServiceLocator.get() on an async factory throws AsyncServiceError and getAsync() shares that creation", async () => {
  const locator = new ServiceLocator();
  let calls = 0;
  locator.register("db", async () => {
    calls++;
    await Promise.resolve();
    return "db";
  });
  assert.throws(() => locator.get("db"), (error: unknown) => {
    assert.ok(error instanceof AsyncServiceError);
    assert.equal(
      error.message,
      "Service 'db' is created asynchronously: use getAsync('db')",
    );
    return true;
  });
  assert.equal(await locator.getAsync("db"), "db");
  assert.equal(calls, 1);
});

test("ServiceLocator.has(), registerInstance() and unregister()", () => {
  const locator = new ServiceLocator();
  assert.equal(locator.has("port"), false);
  locator.registerInstance("port", 3000);
  locator.register("host", () => "localhost");
  assert.equal(locator.has("port"), true);
  assert.equal(locator.has("host"), true);
  assert.equal(locator.get("port"), 3000);
  assert.equal(locator.unregister("port"), true);
  assert.equal(
    locator.unregister("port"),
    false,
    "second unregister reports nothing removed",
  );
  assert.equal(locator.has("port"), false);
  assert.throws(() => locator.get("port"), {
    message: /^Service not found: port(\n|$)/,
  });
});

test("ServiceLocator.registerInstance() keeps falsy values", () => {
  const locator = new ServiceLocator();
  locator.registerInstance("zero", 0);
  locator.registerInstance("nothing", undefined);
  assert.equal(locator.get("zero"), 0);
  assert.equal(locator.get("nothing"), undefined);
  assert.equal(locator.has("nothing"), true);
});

test("ServiceLocator.register() again replaces the registration and the instance", () => {
  const locator = new ServiceLocator();
  locator.register("mode", () => "old");
  assert.equal(locator.get("mode"), "old");
  locator.register("mode", () => "new");
  assert.equal(locator.get("mode"), "new");
});

test("ServiceLocator.register() rejects a factory that is not a function", () => {
  const locator = new ServiceLocator();
  assert.throws(
    () => locator.register("x", 5 as unknown as () => number),
    {
      name: "TypeError",
      message: "ServiceLocator.register('x'): the factory must be a function",
    },
  );
});

test("ServiceLocator static methods act on a default locator that reset() clears", () => {
  ServiceLocator.reset();
  try {
    ServiceLocator.register("config", () => ({ env: "test" }));
    ServiceLocator.registerInstance("port", 8080);
    assert.equal(ServiceLocator.has("config"), true);
    assert.deepEqual(ServiceLocator.get<{ env: string }>("config"), {
      env: "test",
    });
    assert.equal(ServiceLocator.default.get("port"), 8080);
    assert.equal(ServiceLocator.unregister("port"), true);
    const isolated = new ServiceLocator();
    assert.equal(
      isolated.has("config"),
      false,
      "instances are isolated from the default",
    );
    ServiceLocator.reset();
    assert.equal(ServiceLocator.has("config"), false);
    // The first line is exact; the next says no application is running.
    assert.throws(() => ServiceLocator.get("config"), {
      message: /^Service not found: config\nNo application is running/,
    });
  } finally {
    ServiceLocator.reset();
  }
});

test("ServiceLocator.getAsync() static form awaits the default locator's async factory", async () => {
  ServiceLocator.reset();
  try {
    ServiceLocator.register("answer", () => Promise.resolve(42));
    assert.equal(await ServiceLocator.getAsync<number>("answer"), 42);
  } finally {
    ServiceLocator.reset();
  }
});

test("ServiceLocator: a ServiceNotFoundError thrown while creating another service names that service", async () => {
  const locator = new ServiceLocator();
  locator.register("users", (l) => ({ db: l.get("db") }));
  locator.register("app", (l) => ({ users: l.get("users") }));
  assert.throws(() => locator.get("users"), (error: unknown) => {
    assert.ok(error instanceof ServiceNotFoundError);
    assert.equal(
      error.message,
      'Service not found: db\nAsked for while creating "users"; register "db", or correct the name in the factory of "users".',
    );
    assert.deepEqual(error.creating, ["users"]);
    return true;
  });
  // Deeper: the whole chain, and the suggestion stays the last line.
  locator.register("dbx", () => 1);
  assert.throws(() => locator.get("app"), {
    message:
      'Service not found: db\nAsked for while creating "users" (app → users → db); register "db", or correct the name in the factory of "users".\nDid you mean: dbx?',
  });
  // Async factories name their service as well.
  locator.register("reports", async (l) => {
    await Promise.resolve();
    return { mailer: l.get("mailer") };
  });
  await assert.rejects(locator.getAsync("reports"), (error: unknown) => {
    assert.ok(error instanceof ServiceNotFoundError);
    assert.match(error.message, /^Service not found: mailer\n/);
    assert.deepEqual(error.creating, ["reports"]);
    return true;
  });
  // Asked for directly: the message stays one line.
  assert.throws(() => locator.get("nothing"), {
    message: "Service not found: nothing",
  });
});
