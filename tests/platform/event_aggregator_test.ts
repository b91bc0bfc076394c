import { test } from "node:test";
import assert from "node:assert/strict";
import { EventAggregator } from "../../platform/mod.ts";

interface User {
  id: string;
}
interface Events {
  "user:created": User;
  "order:placed": number;
}

function collectErrors(): {
  errors: { error: unknown; event: string }[];
  onError: (error: unknown, event: string) => void;
} {
  const errors: { error: unknown; event: string }[] = [];
  return { errors, onError: (error, event) => errors.push({ error, event }) };
}

test("EventAggregator.publish() delivers the payload to every subscriber in order", () => {
  const events = new EventAggregator<Events>();
  const seen: string[] = [];
  events.subscribe("user:created", (user) => void seen.push(`1:${user.id}`));
  events.subscribe("user:created", (user) => void seen.push(`2:${user.id}`));
  events.subscribe("order:placed", (n) => void seen.push(`order:${n}`));
  events.publish("user:created", { id: "u1" });
  assert.deepEqual(seen, ["1:u1", "2:u1"]);
});

test("EventAggregator.publish() of an event nobody subscribed to does nothing", () => {
  const events = new EventAggregator();
  events.publish("nothing", 1);
  assert.equal(events.listenerCount("nothing"), 0);
});

test("EventAggregator.subscribe() returns a remover that is harmless to call twice", () => {
  const events = new EventAggregator<Events>();
  let calls = 0;
  const unsubscribe = events.subscribe("order:placed", () => void calls++);
  const other = events.subscribe("order:placed", () => void calls++);
  events.publish("order:placed", 1);
  unsubscribe();
  unsubscribe();
  assert.equal(events.listenerCount("order:placed"), 1);
  events.publish("order:placed", 2);
  assert.equal(calls, 3);
  other();
  assert.equal(events.listenerCount("order:placed"), 0);
});

test("EventAggregator: a handler that unsubscribes itself during publish still lets the others run", () => {
  const events = new EventAggregator<Events>();
  const seen: string[] = [];
  const removeFirst = events.subscribe("order:placed", () => {
    seen.push("first");
    removeFirst();
  });
  events.subscribe("order:placed", () => void seen.push("second"));
  events.publish("order:placed", 1);
  events.publish("order:placed", 2);
  assert.deepEqual(seen, ["first", "second", "second"]);
});

test("EventAggregator: a handler removed by an earlier one during publish is skipped", () => {
  const events = new EventAggregator<Events>();
  const seen: string[] = [];
  let removeSecond = (): void => {};
  events.subscribe("order:placed", () => {
    seen.push("first");
    removeSecond();
  });
  removeSecond = events.subscribe(
    "order:placed",
    () => void seen.push("second"),
  );
  events.publish("order:placed", 1);
  assert.deepEqual(seen, ["first"]);
});

test("EventAggregator: a handler added during publish first hears the next one", () => {
  const events = new EventAggregator<Events>();
  const seen: string[] = [];
  events.subscribe("order:placed", (n) => {
    seen.push(`outer:${n}`);
    if (n === 1) {
      events.subscribe("order:placed", (m) => void seen.push(`inner:${m}`));
    }
  });
  events.publish("order:placed", 1);
  events.publish("order:placed", 2);
  assert.deepEqual(seen, ["outer:1", "outer:2", "inner:2"]);
});

test("EventAggregator: a throwing handler does not stop the others and reaches onError", () => {
  const { errors, onError } = collectErrors();
  const events = new EventAggregator<Events>({ onError });
  const seen: string[] = [];
  events.subscribe("order:placed", () => {
    throw new Error("first failed");
  });
  events.subscribe("order:placed", () => void seen.push("second"));
  events.publish("order:placed", 1);
  assert.deepEqual(seen, ["second"]);
  assert.equal(errors.length, 1);
  assert.equal((errors[0].error as Error).message, "first failed");
  assert.equal(errors[0].event, "order:placed");
});

test("EventAggregator: a rejected async handler is reported by publish()", async () => {
  const { errors, onError } = collectErrors();
  const events = new EventAggregator<Events>({ onError });
  events.subscribe("order:placed", async () => {
    await Promise.resolve();
    throw new Error("async failed");
  });
  events.publish("order:placed", 1);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(errors.length, 1);
  assert.equal((errors[0].error as Error).message, "async failed");
});

test("EventAggregator reports handler errors to console.error by default, never silently", () => {
  const original = console.error;
  const logged: unknown[][] = [];
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const events = new EventAggregator<Events>();
    events.subscribe("order:placed", () => {
      throw new Error("loud");
    });
    events.publish("order:placed", 1);
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 1);
  assert.match(String(logged[0][0]), /order:placed/);
  assert.equal((logged[0][1] as Error).message, "loud");
});

test("EventAggregator: an onError hook that throws falls back to console.error", () => {
  const original = console.error;
  const logged: unknown[][] = [];
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const events = new EventAggregator<Events>({
      onError: () => {
        throw new Error("hook broke");
      },
    });
    events.subscribe("order:placed", () => {
      throw new Error("handler broke");
    });
    events.publish("order:placed", 1);
  } finally {
    console.error = original;
  }
  assert.equal(logged.length, 1);
  assert.equal((logged[0][1] as Error).message, "hook broke");
  assert.equal((logged[0][2] as Error).message, "handler broke");
});

test("EventAggregator.publishAsync() waits for async handlers and reports their errors", async () => {
  const { errors, onError } = collectErrors();
  const events = new EventAggregator<Events>({ onError });
  const done: string[] = [];
  events.subscribe("order:placed", async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    done.push("slow");
  });
  events.subscribe("order:placed", async () => {
    await Promise.resolve();
    throw new Error("rejected");
  });
  events.subscribe("order:placed", () => {
    done.push("sync");
  });
  await events.publishAsync("order:placed", 1);
  assert.deepEqual(done.sort(), ["slow", "sync"]);
  assert.equal(errors.length, 1);
  assert.equal((errors[0].error as Error).message, "rejected");
});

test("EventAggregator.once() fires a single time and can be cancelled", async () => {
  const events = new EventAggregator<Events>();
  const seen: number[] = [];
  events.once("order:placed", (n) => void seen.push(n));
  const cancel = events.once("order:placed", (n) => void seen.push(n * 100));
  cancel();
  events.publish("order:placed", 1);
  events.publish("order:placed", 2);
  events.once("order:placed", (n) => void seen.push(n));
  await events.publishAsync("order:placed", 3);
  await events.publishAsync("order:placed", 4);
  assert.deepEqual(seen, [1, 3]);
  assert.equal(events.listenerCount("order:placed"), 0);
});

test("EventAggregator.clear() removes subscribers of one event or all", () => {
  const events = new EventAggregator<Events>();
  let calls = 0;
  events.subscribe("order:placed", () => void calls++);
  events.subscribe("user:created", () => void calls++);
  events.clear("order:placed");
  events.publish("order:placed", 1);
  events.publish("user:created", { id: "u" });
  assert.equal(calls, 1);
  events.clear();
  events.publish("user:created", { id: "u" });
  assert.equal(calls, 1);
});

test("EventAggregator.subscribe() rejects a handler that is not a function", () => {
  const events = new EventAggregator();
  assert.throws(
    () => events.subscribe("x", null as unknown as () => void),
    { name: "TypeError" },
  );
});

test("EventAggregator breaks a circular dependency between two services", () => {
  // UserService publishes; MailService reacts without UserService knowing it.
  const events = new EventAggregator<Events>();
  const mails: string[] = [];
  class MailService {
    readonly dispose: () => void;
    constructor(bus: EventAggregator<Events>) {
      this.dispose = bus.subscribe(
        "user:created",
        (user) => void mails.push(user.id),
      );
    }
  }
  class UserService {
    constructor(private readonly bus: EventAggregator<Events>) {}
    create(id: string): User {
      const user = { id };
      this.bus.publish("user:created", user);
      return user;
    }
  }
  const mail = new MailService(events);
  new UserService(events).create("ada");
  mail.dispose();
  new UserService(events).create("bob");
  assert.deepEqual(mails, ["ada"]);
});
