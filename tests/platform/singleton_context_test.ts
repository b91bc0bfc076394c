// A singleton created while a request is being served belongs to no request:
// what its factory starts (timers, promises) runs outside the request's
// context, on every runtime (Deno's AsyncLocalStorage.exit() alone leaves
// timers and promises started inside it in the request).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  RequestContext,
  type RequestContextValues,
} from "../../platform/mod.ts";

test("a singleton created during a request starts its timers and promises outside it", async () => {
  await using app = await Application.start({
    configuration: () => ({}),
  });
  let seenByTimer: RequestContextValues | undefined | "not run" = "not run";
  let seenByPromise: RequestContextValues | undefined | "not run" = "not run";
  let timerDone!: () => void;
  const fired = new Promise<void>((resolve) => timerDone = resolve);
  app.services.register("poller", () => {
    setTimeout(() => {
      seenByTimer = RequestContext.current();
      timerDone();
    }, 1);
    void Promise.resolve().then(() => {
      seenByPromise = RequestContext.current();
    });
    return { poll: true };
  });
  const handler = app.handle(() => {
    app.services.get("poller");
    return new Response("ok");
  });
  const response = await handler(
    new Request("http://localhost/", {
      headers: { "X-Request-ID": "first-request" },
    }),
  );
  assert.equal(response.headers.get("X-Request-ID"), "first-request");
  await fired;
  assert.equal(seenByTimer, undefined);
  assert.equal(seenByPromise, undefined);
});
