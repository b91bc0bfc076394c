// Error tracking on servers, proven in real child processes: the exception
// event reaches the collector before the crash, the crash still happens with
// the usual exit code and message, and an application's own handler still
// decides. Also: the flush timer never keeps a process alive.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { receivedEvents, startCollector } from "./_helpers.ts";
import { isNpmPass } from "../_support/module_url.ts";
import {
  analyticsModulePath,
  bundleAnalytics,
  bunExecutable,
  type ChildResult,
  denoExecutable,
  nodeExecutable,
  runChild,
  tempDir,
} from "./_subprocess.ts";
import type { AnalyticsEvent } from "../../analytics/mod.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

// The child program. SCENARIO decides what goes wrong.
function program(moduleUrl: string): string {
  return `
import process from "node:process";
import { AnalyticsManager, CustomAnalyticsProvider } from ${
    JSON.stringify(moduleUrl)
  };
const [endpoint, scenario] = process.argv.slice(2);
if (scenario === "deno-prevented") {
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    console.log("app handled the rejection");
  });
}
if (scenario === "node-handled") {
  process.on("uncaughtException", (error) => {
    console.log("app handled " + error.message);
  });
}
const analytics = new AnalyticsManager({
  anonymousId: "crash-test",
  enableErrorTracking: scenario !== "idle",
  errorFlushTimeout: 10000,
});
analytics.addProvider(new CustomAnalyticsProvider({
  endpoint,
  batchSize: 100,
  flushInterval: 60000,
  retryDelay: 50,
}));
const survive = async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  await analytics.dispose();
  console.log("still alive");
};
switch (scenario) {
  case "uncaught":
    setTimeout(() => { throw new Error("kaboom-uncaught"); }, 10);
    break;
  case "rejection":
    Promise.reject(new Error("kaboom-rejection"));
    break;
  case "deno-prevented":
    Promise.reject(new Error("kaboom-prevented"));
    survive();
    break;
  case "node-handled":
    setTimeout(() => { throw new Error("kaboom-handled"); }, 10);
    survive();
    break;
  case "node-warn":
    Promise.reject(new Error("kaboom-warned"));
    survive();
    break;
  case "idle":
    analytics.track("idle");
    console.log("done");
    break;
}
`;
}

interface Fixture {
  run(scenario: string, extraArgs?: string[]): Promise<ChildResult>;
  exceptions(): AnalyticsEvent[];
  close(): Promise<void>;
}

async function fixture(runtime: "deno" | "node" | "bun"): Promise<Fixture> {
  const server = await startCollector();
  const dir = await tempDir();
  let script: string;
  if (runtime === "deno") {
    script = join(dir.path, "child.ts");
    await writeFile(
      script,
      program(pathToFileURL(analyticsModulePath).href),
    );
  } else {
    const bundle = await bundleAnalytics(dir.path);
    script = join(dir.path, "child.mjs");
    await writeFile(script, program(pathToFileURL(bundle).href));
  }
  return {
    run: (scenario, extraArgs = []) =>
      runtime === "deno"
        ? runChild(denoExecutable!, [
          "run",
          "-A",
          // The repository's deno.dev.json: the sources import npm packages by
          // their bare names (@opentelemetry/api).
          "--config",
          fileURLToPath(new URL("../../deno.dev.json", import.meta.url)),
          ...extraArgs,
          script,
          `${server.url}/collect`,
          scenario,
        ])
        : runChild(runtime === "bun" ? bunExecutable! : nodeExecutable!, [
          ...extraArgs,
          script,
          `${server.url}/collect`,
          scenario,
        ]),
    exceptions: () =>
      receivedEvents(server).filter((e) => e.name === "exception"),
    close: async () => {
      await server.close();
      await dir.remove();
    },
  };
}

const noDeno = denoExecutable === undefined
  ? "deno is not installed (needed to run or bundle the child program)"
  : false;
const noNode = nodeExecutable === undefined ? "node is not installed" : noDeno;
const noBun = bunExecutable === undefined
  ? "bun is not installed (the npm passes install it: deno task test)"
  : noDeno;
// The npm build carries the Node.js/Bun flavour of error tracking only; Deno's
// global-event flavour is tested in the Deno pass, against the sources.
const noDenoHere = isNpmPass()
  ? "Deno's error tracking ships on JSR, not in the npm build (tested in the Deno pass)"
  : noDeno;

test(
  "Deno: an uncaught error is tracked, flushed, then still crashes the process",
  {
    skip: noDenoHere,
  },
  async () => {
    const f = await fixture("deno");
    try {
      const result = await f.run("uncaught");
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /Uncaught Error: kaboom-uncaught/);
      const [event] = f.exceptions();
      assert.equal(event.properties.description, "kaboom-uncaught");
      assert.equal(event.properties.source, "uncaughtException");
      assert.equal(event.properties.fatal, true);
      assert.equal(event.properties.errorName, "Error");
    } finally {
      await f.close();
    }
  },
);

test(
  "Deno: an unhandled rejection is tracked, flushed, then still crashes the process",
  {
    skip: noDenoHere,
  },
  async () => {
    const f = await fixture("deno");
    try {
      const result = await f.run("rejection");
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        /Uncaught \(in promise\) Error: kaboom-rejection/,
      );
      const [event] = f.exceptions();
      assert.equal(event.properties.description, "kaboom-rejection");
      assert.equal(event.properties.source, "unhandledRejection");
      assert.equal(event.properties.fatal, true);
    } finally {
      await f.close();
    }
  },
);

test(
  "Deno: a rejection the application prevents is tracked as not fatal and the process lives on",
  {
    skip: noDenoHere,
  },
  async () => {
    const f = await fixture("deno");
    try {
      const result = await f.run("deno-prevented");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /app handled the rejection/);
      assert.match(result.stdout, /still alive/);
      const [event] = f.exceptions();
      assert.equal(event.properties.description, "kaboom-prevented");
      assert.equal(event.properties.fatal, false);
    } finally {
      await f.close();
    }
  },
);

test("Deno: the unref'd flush timer does not keep the process alive", {
  skip: noDenoHere,
}, async () => {
  const f = await fixture("deno");
  try {
    // flushInterval is 60 s: a ref'd timer would hold the process that long.
    const result = await f.run("idle");
    assert.equal(result.timedOut, false);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /done/);
    assert.ok(result.elapsedMs < 30_000);
  } finally {
    await f.close();
  }
});

// Node.js and Bun share the process-event flavour of error tracking; the same
// child program proves it in both.
for (
  const [label, runtime, skip] of [
    ["Node", "node", noNode],
    ["Bun", "bun", noBun],
  ] as const
) {
  test(
    `${label}: an uncaught exception is tracked, flushed, then still crashes with exit code 1`,
    { skip },
    async () => {
      const f = await fixture(runtime);
      try {
        const result = await f.run("uncaught");
        assert.equal(result.code, 1, result.stderr);
        // Node prints `Error: <message>`, Bun `error: <message>`.
        assert.match(result.stderr, /[Ee]rror: kaboom-uncaught/);
        const [event] = f.exceptions();
        assert.equal(event.properties.description, "kaboom-uncaught");
        assert.equal(event.properties.source, "uncaughtException");
        assert.equal(event.properties.fatal, true);
      } finally {
        await f.close();
      }
    },
  );

  test(
    `${label}: an unhandled rejection still crashes in the default mode, after the event is delivered`,
    { skip },
    async () => {
      const f = await fixture(runtime);
      try {
        const result = await f.run("rejection");
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr, /[Ee]rror: kaboom-rejection/);
        const [event] = f.exceptions();
        assert.equal(event.properties.source, "unhandledRejection");
        assert.equal(event.properties.fatal, true);
      } finally {
        await f.close();
      }
    },
  );

  test(
    `${label}: the application's own uncaughtException handler still decides`,
    { skip },
    async () => {
      const f = await fixture(runtime);
      try {
        const result = await f.run("node-handled");
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /app handled kaboom-handled/);
        assert.match(result.stdout, /still alive/);
        const [event] = f.exceptions();
        assert.equal(event.properties.fatal, false);
      } finally {
        await f.close();
      }
    },
  );

  test(
    `${label}: the unref'd flush timer does not keep the process alive`,
    { skip },
    async () => {
      const f = await fixture(runtime);
      try {
        const result = await f.run("idle");
        assert.equal(result.timedOut, false);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /done/);
        assert.ok(result.elapsedMs < 30_000);
      } finally {
        await f.close();
      }
    },
  );
}

test("Node: --unhandled-rejections=warn keeps warning instead of crashing", {
  skip: noNode,
}, async () => {
  const f = await fixture("node");
  try {
    const result = await f.run("node-warn", ["--unhandled-rejections=warn"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /still alive/);
    const [event] = f.exceptions();
    assert.equal(event.properties.description, "kaboom-warned");
    assert.equal(event.properties.fatal, false);
  } finally {
    await f.close();
  }
});
