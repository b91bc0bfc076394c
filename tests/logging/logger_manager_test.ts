import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type ILogProvider,
  InvalidLogLevelError,
  type LogEntry,
  LoggerManager,
  LogLevel,
} from "../../logging/mod.ts";
import { RequestContext } from "../../platform/mod.ts";
import { MemoryLogProvider } from "./_helpers.ts";

test("LoggerManager.getLogger() writes entries with level, category, message and properties", () => {
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    level: "debug",
    providers: [memory],
  });
  const logger = manager.getLogger("orders");
  const before = Date.now();
  logger.debug("d", { a: 1 });
  logger.info("i");
  logger.warning("w");
  logger.error("e");
  assert.deepEqual(
    memory.entries.map((entry) => [entry.level, entry.category, entry.message]),
    [
      [LogLevel.Debug, "orders", "d"],
      [LogLevel.Info, "orders", "i"],
      [LogLevel.Warning, "orders", "w"],
      [LogLevel.Error, "orders", "e"],
    ],
  );
  assert.deepEqual(memory.entries[0].properties, { a: 1 });
  assert.deepEqual(memory.entries[1].properties, {});
  assert.ok(memory.entries[0].timestamp instanceof Date);
  assert.ok(memory.entries[0].timestamp.getTime() >= before);
});

test("LoggerManager.configure() level filters; string form and member are equivalent", () => {
  for (const level of ["warning", LogLevel.Warning] as const) {
    const memory = new MemoryLogProvider();
    const logger = new LoggerManager().configure({ level, providers: [memory] })
      .getLogger("x");
    logger.debug("no");
    logger.info("no");
    logger.warning("yes");
    logger.error("yes");
    logger.log(LogLevel.Info, "no");
    logger.log(LogLevel.Error, "yes");
    assert.deepEqual(memory.entries.map((entry) => entry.message), [
      "yes",
      "yes",
      "yes",
    ]);
    assert.equal(logger.isEnabled(LogLevel.Info), false);
    assert.equal(logger.isEnabled(LogLevel.Warning), true);
  }
});

test("LoggerManager.configure() defaults the level to info", () => {
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({ providers: [memory] });
  assert.equal(manager.level, LogLevel.Info);
  manager.getLogger("x").debug("no");
  manager.getLogger("x").info("yes");
  assert.deepEqual(memory.entries.map((entry) => entry.message), ["yes"]);
});

test("Logger below the level touches neither its properties nor any provider", () => {
  const memory = new MemoryLogProvider();
  const logger = new LoggerManager().configure({
    level: "error",
    providers: [memory],
  })
    .getLogger("hot");
  const touched: string[] = [];
  const properties = new Proxy({ a: 1 }, {
    get(target, key) {
      touched.push(String(key));
      return Reflect.get(target, key);
    },
    ownKeys(target) {
      touched.push("ownKeys");
      return Reflect.ownKeys(target);
    },
  });
  const result = logger.debug("skipped", properties);
  logger.info("skipped", properties);
  logger.warning("skipped", properties);
  assert.equal(result, undefined); // no promise
  assert.deepEqual(touched, []);
  assert.equal(memory.enabledCalls, 0);
  assert.equal(memory.entries.length, 0);
  logger.error("written", properties);
  assert.ok(touched.length > 0);
  assert.equal(memory.entries.length, 1);
});

test("Logger calls return nothing, also when enabled", () => {
  const manager = new LoggerManager().configure({
    providers: [new MemoryLogProvider()],
  });
  assert.equal(manager.getLogger("x").info("hi"), undefined);
});

test("Provider isEnabled() filters per provider", () => {
  const all = new MemoryLogProvider(LogLevel.Debug);
  const errorsOnly = new MemoryLogProvider(LogLevel.Error);
  const logger = new LoggerManager().configure({
    level: "debug",
    providers: [all, errorsOnly],
  })
    .getLogger("x");
  logger.info("a");
  logger.error("b");
  assert.equal(all.entries.length, 2);
  assert.deepEqual(errorsOnly.entries.map((entry) => entry.message), ["b"]);
});

test("Logger.with() adds context to every entry; the call's properties win", () => {
  const memory = new MemoryLogProvider();
  const logger = new LoggerManager().configure({
    level: "debug",
    providers: [memory],
  })
    .getLogger("http");
  const child = logger.with({ route: "/orders", user: "ann" });
  const grandchild = child.with({ user: "bob", step: 2 });
  child.info("one", { status: 200 });
  grandchild.info("two", { step: 3 });
  logger.info("three");
  assert.equal(child.category, "http");
  assert.deepEqual(memory.entries[0].properties, {
    route: "/orders",
    user: "ann",
    status: 200,
  });
  assert.deepEqual(memory.entries[1].properties, {
    route: "/orders",
    user: "bob",
    step: 3,
  });
  assert.deepEqual(memory.entries[2].properties, {});
});

test("Logger.with({ requestId }) sets LogEntry.requestId instead of a property", () => {
  const memory = new MemoryLogProvider();
  const logger = new LoggerManager().configure({ providers: [memory] })
    .getLogger("http");
  logger.with({ requestId: "r-1", user: "ann" }).info("handled");
  logger.info("direct", { requestId: "r-2", a: 1 });
  assert.equal(memory.entries[0].requestId, "r-1");
  assert.deepEqual(memory.entries[0].properties, { user: "ann" });
  assert.equal(memory.entries[1].requestId, "r-2");
  assert.deepEqual(memory.entries[1].properties, { a: 1 });
});

test("Logger takes an Error in place of properties or as an error property", () => {
  const memory = new MemoryLogProvider();
  const logger = new LoggerManager().configure({ providers: [memory] })
    .getLogger("x");
  const first = new Error("first");
  const second = new TypeError("second");
  logger.error("failed", first);
  const properties = { error: second, orderId: 7 };
  logger.error("failed", properties);
  logger.warning("not an error object", { error: "text" });
  assert.equal(memory.entries[0].error, first);
  assert.deepEqual(memory.entries[0].properties, {});
  assert.equal(memory.entries[1].error, second);
  assert.deepEqual(memory.entries[1].properties, { orderId: 7 });
  assert.deepEqual(
    properties,
    { error: second, orderId: 7 },
    "the caller's object is untouched",
  );
  assert.equal(memory.entries[2].error, undefined);
  assert.deepEqual(memory.entries[2].properties, { error: "text" });
});

test("LoggerManager.getLogger() returns the same logger per category and it follows reconfiguration", () => {
  const manager = new LoggerManager();
  const logger = manager.getLogger("a");
  assert.equal(manager.getLogger("a"), logger);
  const first = new MemoryLogProvider();
  const second = new MemoryLogProvider();
  logger.info("before configure");
  manager.configure({ level: "info", providers: [first] });
  logger.info("to first");
  manager.configure({ level: "error", providers: [second] });
  logger.info("filtered");
  logger.error("to second");
  assert.deepEqual(first.entries.map((entry) => entry.message), ["to first"]);
  assert.deepEqual(second.entries.map((entry) => entry.message), ["to second"]);
});

test("LoggerManager without providers writes nothing", () => {
  const manager = new LoggerManager();
  const logger = manager.getLogger("x");
  assert.equal(logger.isEnabled(LogLevel.Error), false);
  logger.error("nowhere");
  manager.configure({ level: "debug", providers: [] });
  assert.equal(logger.isEnabled(LogLevel.Error), false);
});

test("LoggerManager static methods act on a default manager; new LoggerManager() is isolated", async () => {
  const memory = new MemoryLogProvider();
  const isolated = new MemoryLogProvider();
  LoggerManager.reset();
  try {
    const returned = LoggerManager.configure({
      level: "debug",
      providers: [memory],
    });
    assert.equal(returned, LoggerManager.default);
    const own = new LoggerManager().configure({
      level: "debug",
      providers: [isolated],
    });
    LoggerManager.getLogger("static").info("via static");
    own.getLogger("own").info("via instance");
    assert.deepEqual(memory.entries.map((entry) => entry.message), [
      "via static",
    ]);
    assert.deepEqual(isolated.entries.map((entry) => entry.message), [
      "via instance",
    ]);
    await LoggerManager.flush();
    assert.equal(memory.flushes, 1);
    await LoggerManager.dispose();
    assert.equal(memory.disposals, 1);
    LoggerManager.getLogger("static").info("after dispose");
    assert.equal(memory.entries.length, 1);
    const before = LoggerManager.default;
    LoggerManager.reset();
    assert.notEqual(LoggerManager.default, before);
  } finally {
    await LoggerManager.dispose();
    LoggerManager.reset();
  }
});

test("LoggerManager.flush() waits for providers' flush and for pending log() promises", async () => {
  const written: string[] = [];
  const slow: ILogProvider = {
    isEnabled: () => true,
    log: async (entry: LogEntry) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      written.push(entry.message);
    },
  };
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({ providers: [slow, memory] });
  manager.getLogger("x").info("a");
  manager.getLogger("x").info("b");
  assert.deepEqual(written, []);
  await manager.flush();
  assert.deepEqual(written, ["a", "b"]);
  assert.equal(memory.flushes, 1);
  await manager.dispose();
});

test("LoggerManager.dispose() disposes every provider (or flushes one without dispose) and stops writing", async () => {
  let flushed = 0;
  const flushOnly: ILogProvider = {
    isEnabled: () => true,
    log: () => Promise.resolve(),
    flush: () => {
      flushed++;
      return Promise.resolve();
    },
  };
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    providers: [memory, flushOnly],
  });
  await manager.dispose();
  assert.equal(memory.disposals, 1);
  assert.equal(flushed, 1);
  assert.deepEqual(manager.providers, []);
  manager.getLogger("x").error("dropped");
  assert.equal(memory.entries.length, 0);
});

test("LoggerManager.configure() disposes providers it no longer uses, awaited by flush()", async () => {
  const old = new MemoryLogProvider();
  const kept = new MemoryLogProvider();
  const manager = new LoggerManager().configure({ providers: [old, kept] });
  manager.configure({ providers: [kept] });
  await manager.flush();
  assert.equal(old.disposals, 1);
  assert.equal(kept.disposals, 0);
  await manager.dispose();
  assert.equal(kept.disposals, 1);
});

test("LoggerManager reports a provider that throws or rejects to onError, never to the caller", async () => {
  const errors: unknown[] = [];
  const throwing: ILogProvider = {
    isEnabled: () => true,
    log: () => {
      throw new Error("sync failure");
    },
  };
  const rejecting: ILogProvider = {
    isEnabled: () => true,
    log: () => Promise.reject(new Error("async failure")),
  };
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    providers: [throwing, rejecting, memory],
    onError: (error) => errors.push(error),
  });
  manager.getLogger("x").info("still delivered");
  await manager.flush();
  assert.equal(memory.entries.length, 1);
  assert.deepEqual(errors.map((error) => (error as Error).message).sort(), [
    "async failure",
    "sync failure",
  ]);
});

test("LoggerManager.flush() and dispose() reject with AggregateError when a provider fails", async () => {
  const failing: ILogProvider = {
    isEnabled: () => true,
    log: () => Promise.resolve(),
    flush: () => Promise.reject(new Error("disk gone")),
    dispose: () => Promise.reject(new Error("close failed")),
  };
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    providers: [failing, memory],
  });
  await assert.rejects(manager.flush(), (error: unknown) => {
    assert.ok(error instanceof AggregateError);
    assert.equal((error.errors[0] as Error).message, "disk gone");
    return true;
  });
  assert.equal(
    memory.flushes,
    1,
    "the other provider was flushed all the same",
  );
  await assert.rejects(manager.dispose(), AggregateError);
  assert.equal(memory.disposals, 1);
});

test("LoggerManager.configure() rejects a bad level or provider", () => {
  const manager = new LoggerManager();
  assert.throws(
    () => manager.configure({ level: "loud" as "info", providers: [] }),
    InvalidLogLevelError,
  );
  assert.throws(
    () =>
      manager.configure({
        providers: [
          { log: () => Promise.resolve() } as unknown as ILogProvider,
        ],
      }),
    /providers\[0\] must have log\(entry\) and isEnabled\(level\) methods/,
  );
});

test("LoggerManager supports await using", async () => {
  const memory = new MemoryLogProvider();
  {
    await using manager = new LoggerManager().configure({
      providers: [memory],
    });
    manager.getLogger("x").info("hi");
  }
  assert.equal(memory.disposals, 1);
});

test("Entries written inside RequestContext.run carry its requestId and values; 100 concurrent contexts never mix", async () => {
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    level: "info",
    providers: [memory],
  });
  const logger = manager.getLogger("requests");
  await Promise.all(
    Array.from({ length: 100 }, (_, task) =>
      RequestContext.run(
        { requestId: `r-${task}`, tenant: `t-${task}` },
        async () => {
          for (let i = 0; i < 5; i++) {
            await new Promise((resolve) => setTimeout(resolve, task % 7));
            logger.info("step", { task, i });
          }
        },
      )),
  );
  assert.equal(memory.entries.length, 500);
  for (const entry of memory.entries) {
    const task = entry.properties.task as number;
    assert.equal(entry.requestId, `r-${task}`);
    assert.equal(entry.properties.tenant, `t-${task}`);
    assert.equal("requestId" in entry.properties, false);
  }
  logger.info("outside");
  const outside = memory.entries.at(-1)!;
  assert.equal(outside.requestId, undefined);
  assert.deepEqual(outside.properties, {});
});

test("Explicit properties and with() win over request context values", () => {
  const memory = new MemoryLogProvider();
  const logger = new LoggerManager().configure({
    level: "info",
    providers: [memory],
  }).getLogger("requests");
  RequestContext.run({ requestId: "from-context", tenant: "acme" }, () => {
    logger.info("plain");
    logger.info("own", { tenant: "own", requestId: "from-call" });
    logger.with({ requestId: "from-with", tenant: "with" }).info("child");
  });
  const [plain, own, child] = memory.entries;
  assert.equal(plain.requestId, "from-context");
  assert.deepEqual(plain.properties, { tenant: "acme" });
  assert.equal(own.requestId, "from-call");
  assert.deepEqual(own.properties, { tenant: "own" });
  assert.equal(child.requestId, "from-with");
  assert.deepEqual(child.properties, { tenant: "with" });
});

test("LoggerManager keeps a bounded number of loggers: the most recently used are the same objects", () => {
  const memory = new MemoryLogProvider();
  const manager = new LoggerManager().configure({
    level: "info",
    providers: [memory],
  });
  const first = manager.getLogger("category-0");
  for (let i = 1; i < 5_000; i++) {
    manager.getLogger(`category-${i}`);
    // Used again and again: stays cached.
    assert.equal(manager.getLogger("category-0"), first);
  }
  const evicted = manager.getLogger("category-1");
  const again = manager.getLogger("category-1");
  assert.equal(evicted, again);
  // A logger dropped from the cache keeps working.
  const old = manager.getLogger("category-2");
  for (let i = 5_000; i < 7_000; i++) manager.getLogger(`category-${i}`);
  assert.notEqual(manager.getLogger("category-2"), old);
  old.info("still written");
  assert.equal(memory.entries.at(-1)?.message, "still written");
});
