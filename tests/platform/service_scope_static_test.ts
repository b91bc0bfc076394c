// The static ServiceLocator methods read the locator of the running
// application (Application.start / Application.run), as the troubleshooting
// advice writes them: `ServiceLocator.get<ConfigurationManager>("config")`.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { Application, ServiceLocator } from "../../platform/mod.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

interface Config {
  name: string;
}

describe("static ServiceLocator calls and the running application", () => {
  it("read the locator of an application started with Application.start, until it stops", async () => {
    const app = await Application.start({
      configuration: () => ({ name: "demo" }),
      services: (services) => {
        services.register("greeter", () => ({
          // The static call inside a factory reads the same locator.
          greet: () => `hello ${ServiceLocator.get<Config>("config").name}`,
        }));
      },
    });
    try {
      assert.equal(ServiceLocator.get<Config>("config").name, "demo");
      assert.equal(
        ServiceLocator.get<{ greet(): string }>("greeter").greet(),
        "hello demo",
      );
      // The process-wide default stays apart from the application's.
      assert.notEqual(ServiceLocator.default, app.services);
    } finally {
      await app.stop();
    }
    assert.throws(() => ServiceLocator.get<Config>("config"), {
      name: "ServiceNotFoundError",
      message: /^Service not found: config\nNo application is running/,
    });
  });

  it("read the most recently started application, then the one before when it stops", async () => {
    const first = await Application.start({
      configuration: () => ({ name: "first" }),
    });
    const second = await Application.start({
      configuration: () => ({ name: "second" }),
    });
    try {
      assert.equal(ServiceLocator.get<Config>("config").name, "second");
      await second.stop();
      assert.equal(ServiceLocator.get<Config>("config").name, "first");
    } finally {
      await second.stop();
      await first.stop();
    }
    assert.equal(ServiceLocator.has("config"), false);
  });

  it("still find what was registered statically before the application started", async () => {
    ServiceLocator.reset();
    ServiceLocator.registerInstance("early", "kept");
    const app = await Application.start({ configuration: () => ({}) });
    try {
      assert.equal(ServiceLocator.get<string>("early"), "kept");
      assert.equal(app.services.has("early"), false);
    } finally {
      await app.stop();
      ServiceLocator.reset();
    }
  });

  it("leave the standalone default locator alone while no application runs", () => {
    ServiceLocator.reset();
    try {
      ServiceLocator.register("clock", () => 42);
      assert.equal(ServiceLocator.get<number>("clock"), 42);
    } finally {
      ServiceLocator.reset();
    }
  });

  it("work in an application run with Application.run", async () => {
    const result = await runChildScript(`
      import process from "node:process";
      const { Application, ServiceLocator } = await import(PLATFORM_URL);
      const seen = {};
      const code = await Application.run({
        exit: false,
        configuration: () => ({ name: "ran" }),
        services: (_services, _config, app) => {
          app.addHostedService("probe", {
            start: () => {
              seen.during = ServiceLocator.get("config").name;
              setTimeout(() => process.kill(process.pid, "SIGTERM"), 10);
            },
            stop: () => {},
          });
        },
      });
      try {
        ServiceLocator.get("config");
      } catch (error) {
        seen.after = error.message.split("\\n")[1];
      }
      console.log(JSON.stringify({ code, ...seen }));
    `);
    assert.equal(result.code, 0, result.out);
    const json = lastJson(result);
    assert.equal(json.code, 0);
    assert.equal(json.during, "ran");
    assert.match(String(json.after), /^No application is running/);
  });
});
