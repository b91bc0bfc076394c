// Service lifetimes: singleton (the default), scoped (one per scope, disposed
// with it) and transient (a new one each time); scopes made by hand with
// createScope(); the errors for a scoped service asked for outside any scope
// and for a singleton or transient that depends on a scoped service.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ServiceLifetimeError,
  ServiceLocator,
  type ServiceScope,
} from "../../platform/mod.ts";
import { waitFor } from "../_support/wait_for.ts";

class Connection {
  static opened = 0;
  readonly id = ++Connection.opened;
  closed = false;
  dispose(): void {
    this.closed = true;
  }
}

describe("service lifetimes", () => {
  it("keeps one singleton, makes a transient each time and one scoped per scope", async () => {
    const locator = new ServiceLocator();
    let singletons = 0;
    let transients = 0;
    locator.register("single", () => ++singletons);
    locator.register("fresh", () => ({ n: ++transients }), {
      lifetime: "transient",
    });
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    assert.equal(locator.get("single"), locator.get("single"));
    assert.notEqual(locator.get("fresh"), locator.get("fresh"));
    assert.equal(transients, 2);
    await using a = locator.createScope();
    await using b = locator.createScope();
    const first = a.get<Connection>("conn");
    assert.equal(a.get("conn"), first);
    assert.notEqual(b.get("conn"), first);
    assert.equal(a.get("single"), 1, "singletons resolve through a scope too");
  });

  it("disposes a scope's services newest first with { signal } when the scope ends (await using)", async () => {
    const order: string[] = [];
    let received: unknown;
    const locator = new ServiceLocator();
    const disposable = (name: string) => ({
      dispose(options?: { signal?: AbortSignal }) {
        received ??= options;
        order.push(name);
      },
    });
    locator.register("first", () => disposable("first"), {
      lifetime: "scoped",
    });
    locator.register("second", (l) => {
      l.get("first");
      return disposable("second");
    }, { lifetime: "scoped" });
    locator.register("third", () => disposable("third"), {
      lifetime: "scoped",
    });
    {
      await using scope = locator.createScope();
      scope.get("second");
      scope.get("third");
      assert.deepEqual(order, []);
    }
    assert.deepEqual(order, ["third", "second", "first"]);
    assert.ok(
      (received as { signal?: unknown })?.signal instanceof AbortSignal,
      "dispose(options) receives a signal, as at shutdown",
    );
  });

  it("collects every disposal failure of a scope into one AggregateError naming the services", async () => {
    const locator = new ServiceLocator();
    let other = false;
    locator.register("bad", () => ({
      dispose() {
        throw new Error("boom");
      },
    }), { lifetime: "scoped" });
    locator.register("good", () => ({
      dispose() {
        other = true;
      },
    }), { lifetime: "scoped" });
    const scope = locator.createScope();
    scope.get("bad");
    scope.get("good");
    await assert.rejects(scope.dispose(), {
      name: "AggregateError",
      message: "Failed to dispose 1 scoped service(s): bad",
    });
    assert.equal(other, true);
    assert.equal(scope.disposed, true);
    assert.throws(() => scope.get("good"), {
      name: "ServiceLifetimeError",
      message: /^Service 'good' is scoped and its scope has been disposed/,
    });
  });

  it("awaits async scoped factories with getAsync, sharing one creation per scope", async () => {
    const locator = new ServiceLocator();
    let made = 0;
    locator.register("db", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { n: ++made };
    }, { lifetime: "scoped" });
    await using scope = locator.createScope();
    const [a, b] = await Promise.all([
      scope.getAsync("db"),
      scope.getAsync("db"),
    ]);
    assert.equal(a, b);
    assert.equal(scope.get("db"), a);
    assert.equal(made, 1);
  });

  it("resolves services.get() from the scope that scope.run() makes current, across awaits", async () => {
    const locator = new ServiceLocator();
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    await using scope = locator.createScope();
    const inside = await scope.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return locator.get<Connection>("conn");
    });
    assert.equal(inside, scope.get("conn"));
  });

  it("lets a scoped service depend on singletons and on other scoped services of the same scope", async () => {
    const locator = new ServiceLocator();
    locator.register("config", () => ({ url: "db://" }));
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    locator.register("repo", (l) => ({
      conn: l.get<Connection>("conn"),
      url: l.get<{ url: string }>("config").url,
    }), { lifetime: "scoped" });
    await using scope = locator.createScope();
    const repo = scope.get<{ conn: Connection; url: string }>("repo");
    assert.equal(repo.conn, scope.get("conn"));
    assert.equal(repo.url, "db://");
  });
});

// Settles with what `promise` settled with, or "pending" after `ms`.
async function within(
  promise: Promise<unknown>,
  ms: number,
): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise.then((value) => ({ value }), (error) => ({ error })),
      new Promise((resolve) =>
        timer = setTimeout(() => resolve("pending"), ms)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("scope disposal and its signal", () => {
  it("gives up on a creation that never settles when its signal aborts, naming it, and disposes the rest", async () => {
    const locator = new ServiceLocator();
    locator.register("slow", () => new Promise(() => {}), {
      lifetime: "scoped",
    });
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    const scope = locator.createScope();
    const conn = scope.get<Connection>("conn");
    scope.getAsync("slow").catch(() => {});
    const began = performance.now();
    const outcome = await within(
      scope.dispose({ signal: AbortSignal.timeout(500) }),
      5_000,
    );
    const ms = performance.now() - began;
    assert.notEqual(outcome, "pending", "still disposing after 5 s");
    const { error } = outcome as { error: AggregateError };
    assert.equal(error?.name, "AggregateError");
    assert.equal(
      error.message,
      "Failed to dispose 1 scoped service(s): slow (still being created when the signal aborted)",
    );
    assert.equal(conn.closed, true);
    assert.ok(ms >= 400 && ms < 5_000, `${ms} ms`);
  });

  it("disposes a creation that settles after its scope gave up on it", async () => {
    const locator = new ServiceLocator();
    let release!: () => void;
    const late = new Connection();
    locator.register(
      "late",
      () => new Promise((resolve) => release = () => resolve(late)),
      { lifetime: "scoped" },
    );
    const scope = locator.createScope();
    const asked = scope.getAsync("late");
    const controller = new AbortController();
    const disposing = scope.dispose({ signal: controller.signal });
    controller.abort();
    const outcome = await within(disposing, 5_000);
    assert.notEqual(outcome, "pending", "still disposing after 5 s");
    assert.equal((outcome as { error: Error }).error?.name, "AggregateError");
    assert.equal(late.closed, false);
    release();
    assert.equal(await asked, late);
    await waitFor(() => late.closed, "the late service to be disposed");
  });

  it("gives up on a disposal that outlives its signal, naming it", async () => {
    const locator = new ServiceLocator();
    locator.register("stuck", () => ({
      dispose: () => new Promise<void>(() => {}),
    }), { lifetime: "scoped" });
    const scope = locator.createScope();
    scope.get("stuck");
    const outcome = await within(
      scope.dispose({ signal: AbortSignal.timeout(200) }),
      5_000,
    );
    assert.notEqual(outcome, "pending", "still disposing after 5 s");
    assert.equal(
      (outcome as { error: Error }).error?.message,
      "Failed to dispose 1 scoped service(s): stuck (still disposing when the signal aborted)",
    );
  });
});

describe("lifetime errors", () => {
  it("names the scoped service asked for outside any scope and says what to do", () => {
    const locator = new ServiceLocator();
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    assert.throws(() => locator.get("conn"), (error: unknown) => {
      assert.ok(error instanceof ServiceLifetimeError);
      assert.equal(error.serviceName, "conn");
      assert.equal(error.dependentName, undefined);
      assert.equal(
        error.message,
        "Service 'conn' is scoped: it can only be resolved inside a scope. " +
          "Resolve it while handling a request through app.handle(), or " +
          "inside a scope made with services.createScope() (scope.get() or " +
          "scope.run()), or register it as a singleton or transient.",
      );
      return true;
    });
  });

  it("refuses a singleton that depends on a scoped service (a captive dependency), naming both", () => {
    const locator = new ServiceLocator();
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    locator.register("reports", (l) => ({ conn: l.get("conn") }));
    const scope = locator.createScope();
    assert.throws(() => scope.get("reports"), (error: unknown) => {
      assert.ok(error instanceof ServiceLifetimeError);
      assert.equal(error.serviceName, "conn");
      assert.equal(error.dependentName, "reports");
      assert.equal(
        error.message,
        "Service 'reports' (singleton) cannot depend on scoped service " +
          "'conn': it would keep one scope's instance after that scope is " +
          "disposed. Register 'reports' as scoped, or 'conn' as a singleton " +
          "or transient.",
      );
      return true;
    });
  });

  it("refuses a transient that depends on a scoped service, and one reached through the outer locator", () => {
    const locator = new ServiceLocator();
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    locator.register("job", (l) => l.get("conn"), { lifetime: "transient" });
    // Through the locator the factory closes over, not the one it receives.
    locator.register("cache", () => locator.get("conn"));
    const scope = locator.createScope();
    assert.throws(() => scope.get("job"), {
      name: "ServiceLifetimeError",
      message:
        /^Service 'job' \(transient\) cannot depend on scoped service 'conn'/,
    });
    assert.throws(() => scope.get("cache"), {
      message:
        /^Service 'cache' \(singleton\) cannot depend on scoped service 'conn'/,
    });
  });

  it("rejects a lifetime it does not know, and a scoped or transient service registered eager or hosted", () => {
    const locator = new ServiceLocator();
    assert.throws(
      () =>
        locator.register("x", () => 1, {
          lifetime: "request" as "scoped",
        }),
      {
        name: "TypeError",
        message:
          'ServiceLocator.register(\'x\'): lifetime must be "singleton", "scoped" or "transient", not "request"',
      },
    );
    assert.throws(
      () => locator.register("y", () => 1, { lifetime: "scoped", eager: true }),
      {
        name: "TypeError",
        message:
          "ServiceLocator.register('y'): a scoped service cannot be eager or hosted (only a singleton can be created at start-up)",
      },
    );
  });
});

// Types: compile-time checks (deno check fails on a wrong line).
interface Typed {
  conn: Connection;
  port: number;
}
describe("typed scopes", () => {
  it("give each name its type and refuse unknown names", async () => {
    const locator = new ServiceLocator<Typed>();
    locator.registerInstance("port", 8080);
    locator.register("conn", () => new Connection(), { lifetime: "scoped" });
    await using scope: ServiceScope<Typed> = locator.createScope();
    const conn: Connection = scope.get("conn");
    const port: number = await scope.getAsync("port");
    assert.ok(conn instanceof Connection);
    assert.equal(port, 8080);
    // @ts-expect-error an unknown name is a type error in a scope too
    assert.throws(() => scope.get("nope"));
    assert.throws(() =>
      // @ts-expect-error a lifetime is one of three words
      locator.register("port", () => 1, { lifetime: "request" })
    );
  });
});
