// The scenario every test runner checks against the built packages: start
// an application with a replaced service and a config value, send it a
// request in memory, read a health route and a recorded log line.
// scripts/test_npm.ts runs it under Bun's test runner (bun_runner.mjs) and
// Vitest (vitest_runner.mjs); node --test and deno test run
// tests/platform/testing_test.ts.
import { createTestApplication } from "@vendor/kit-platform/testing";
import { Application } from "@vendor/kit-platform";

/** Runs the scenario; returns what the runner's own assertions check. */
export async function scenario() {
  const app = await createTestApplication({
    configuration: () => ({ greeting: "hello" }),
    services: (services, config) => {
      services.register("greeter", () => ({
        greet: (name) => `${config.greeting} ${name}`,
      }));
    },
    serve: (services) => (request) =>
      new Response(
        services.get("greeter").greet(new URL(request.url).pathname.slice(1)),
      ),
    overrides: {
      greeter: (services) => ({
        greet: (name) => `${services.get("config").greeting}, fake ${name}`,
      }),
    },
    config: { greeting: "hi" },
  });
  // Plain JavaScript for every runner: Node.js 20 has no `await using`.
  try {
    const response = await app.request("/ada", {
      headers: { "X-Request-ID": "runner-1" },
    });
    const live = await app.request("/health/live");
    return {
      isApplication: app instanceof Application,
      url: app.url,
      status: response.status,
      body: await response.text(),
      requestId: response.headers.get("x-request-id"),
      live: live.status,
      logged: app.logs.find("GET /ada 200")?.requestId,
    };
  } finally {
    await app.stop();
  }
}

/** What the scenario must give. */
export const expected = {
  isApplication: true,
  url: undefined,
  status: 200,
  body: "hi, fake ada",
  requestId: "runner-1",
  live: 200,
  logged: "runner-1",
};
