// isOpenTelemetryRegistered() against the real @opentelemetry/api: what is
// registered, unregistered, or removed by a harness is seen at the next
// call; on a sealed or frozen globalThis (child processes of the runtime
// running the tests) it answers without throwing.
import { after, before, describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
  type OpenTelemetryPart,
} from "../../internal/telemetry/open_telemetry.ts";
import { HTTP_DURATION_BUCKETS } from "../../internal/telemetry/http_duration_buckets.ts";
import { memoizeLast } from "../../internal/memoize_last.ts";
import { NON_RECORDING_SPAN } from "../../internal/telemetry/non_recording_span.ts";
import { createScopeTracer } from "../../internal/telemetry/scope_tracer.ts";
import { isNpmPass, moduleUrl } from "../_support/module_url.ts";
import {
  type ChildResult,
  lastJson,
  runChildScript,
} from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

// internal/ for a child process: the source under `deno test`, its
// transpiled copy (beside the tests) in the npm passes.
const INTERNAL = isNpmPass()
  ? new URL("../_kit_internal/", import.meta.url)
  : new URL("../../internal/", import.meta.url);

// The URL of a file of internal/ (`telemetry/open_telemetry`) for a child
// process.
function internalUrl(name: string): string {
  return new URL(`${name}.${isNpmPass() ? "js" : "ts"}`, INTERNAL).href;
}

const KEY = Symbol.for("opentelemetry.js.api.1");
const PARTS: OpenTelemetryPart[] = [
  "context",
  "trace",
  "metrics",
  "propagation",
];

function unregisterAll(): void {
  context.disable();
  trace.disable();
  metrics.disable();
  propagation.disable();
}

function registered(): Record<OpenTelemetryPart, boolean> {
  return Object.fromEntries(
    PARTS.map((part) => [part, isOpenTelemetryRegistered(part)]),
  ) as Record<OpenTelemetryPart, boolean>;
}

const NOTHING = {
  context: false,
  trace: false,
  metrics: false,
  propagation: false,
};

describe("isOpenTelemetryRegistered()", () => {
  before(unregisterAll);
  after(unregisterAll);

  it("is false for every part while nothing is registered", () => {
    assert.deepEqual(registered(), NOTHING);
    assert.equal(isOpenTelemetryRegistered(), false);
  });

  it("sees each part as soon as it is registered, and again once unregistered", () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    assert.deepEqual(registered(), { ...NOTHING, context: true });
    assert.equal(isOpenTelemetryRegistered(), true, "context by default");

    trace.setGlobalTracerProvider(new TracerProvider());
    metrics.setGlobalMeterProvider(new MeterProvider());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    assert.deepEqual(registered(), {
      context: true,
      trace: true,
      metrics: true,
      propagation: true,
    });

    trace.disable();
    assert.equal(isOpenTelemetryRegistered("trace"), false);
    assert.equal(isOpenTelemetryRegistered("context"), true);
    unregisterAll();
    assert.deepEqual(registered(), NOTHING);
  });

  it("keeps no registry: one a harness removed, then a new one, are both seen", () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager());
    assert.equal(isOpenTelemetryRegistered("context"), true);
    const global = globalThis as unknown as Record<symbol, unknown>;
    delete global[KEY];
    assert.deepEqual(registered(), NOTHING);
    // The API makes a new registry object at the next registration.
    trace.setGlobalTracerProvider(new TracerProvider());
    assert.notEqual(global[KEY], undefined);
    assert.deepEqual(registered(), { ...NOTHING, trace: true });
    unregisterAll();
    assert.deepEqual(registered(), NOTHING);
  });

  it("leaves the API working with its slot defined as undefined", () => {
    const global = globalThis as unknown as Record<symbol, unknown>;
    delete global[KEY];
    // What loading core does when nothing is there.
    global[KEY] = undefined;
    assert.equal(isOpenTelemetryRegistered(), false);
    const manager = new AsyncLocalStorageContextManager().enable();
    assert.equal(context.setGlobalContextManager(manager), true);
    assert.equal(isOpenTelemetryRegistered(), true);
    unregisterAll();
  });
});

// Deno's own exit marks globalThis (Symbol(Deno.isUnloadDispatched)), which
// fails on a sealed one after the script ran: that, and only that, may end
// the child with an error.
function assertExited(result: ChildResult): void {
  if (result.code === 0) return;
  const isDeno =
    (process.versions as Record<string, string | undefined>).deno !==
      undefined;
  assert.ok(
    isDeno && /Cannot add property Symbol\(Deno\.isUnloadDispatched\)/.test(
      result.out,
    ) && !/ at .*core/.test(result.out),
    result.out,
  );
}

// The JSON the child printed (its first line).
function printed(result: ChildResult): unknown {
  return JSON.parse(result.out.trim().split("\n")[0]);
}

// Runs `source` (with CORE replaced by core's entry point) in a child of
// the runtime running the tests (Deno here; Node.js and Bun in the npm
// passes), without Deno's own OpenTelemetry.
function runChild(source: string): Promise<ChildResult> {
  return runChildScript(
    source.replace(
      "CORE",
      JSON.stringify(internalUrl("telemetry/open_telemetry")),
    ),
    {
      env: { OTEL_DENO: "false" },
    },
  );
}

describe("isOpenTelemetryRegistered() in a new process", () => {
  it("finds the slot defined as undefined once core is loaded, and a registry made before kept", async () => {
    const result = await runChild(`
const key = Symbol.for("opentelemetry.js.api.1");
delete globalThis[key];
const { isOpenTelemetryRegistered } = await import(CORE);
const fresh = { defined: key in globalThis, value: globalThis[key] ?? null, registered: isOpenTelemetryRegistered() };
globalThis[key] = { version: "1.9.0", trace: {} };
console.log(JSON.stringify({ fresh, trace: isOpenTelemetryRegistered("trace"), context: isOpenTelemetryRegistered("context") }));
`);
    assert.equal(result.code, 0, result.out);
    assert.deepEqual(printed(result), {
      fresh: { defined: true, value: null, registered: false },
      trace: true,
      context: false,
    });
  });
});

describe("isOpenTelemetryRegistered() on a sealed or frozen globalThis", () => {
  it("answers false without throwing when the slot cannot be defined", async () => {
    const result = await runChild(`
const key = Symbol.for("opentelemetry.js.api.1");
delete globalThis[key];
Object.seal(globalThis);
const { isOpenTelemetryRegistered } = await import(CORE);
const answers = [isOpenTelemetryRegistered(), isOpenTelemetryRegistered("trace"), isOpenTelemetryRegistered()];
console.log(JSON.stringify({ answers, defined: key in globalThis, sealed: Object.isSealed(globalThis) }));
`);
    assertExited(result);
    assert.deepEqual(printed(result), {
      answers: [false, false, false],
      defined: false,
      sealed: true,
    });
  });

  it("still sees a registry made before globalThis was frozen", async () => {
    const result = await runChild(`
const key = Symbol.for("opentelemetry.js.api.1");
const registry = { version: "1.9.0", context: {} };
globalThis[key] = registry;
Object.freeze(globalThis);
const { isOpenTelemetryRegistered } = await import(CORE);
const registered = isOpenTelemetryRegistered();
delete registry.context;
console.log(JSON.stringify({ registered, after: isOpenTelemetryRegistered(), frozen: Object.isFrozen(globalThis) }));
`);
    assertExited(result);
    assert.deepEqual(printed(result), {
      registered: true,
      after: false,
      frozen: true,
    });
  });
});

describe("loadOpenTelemetryApi()", () => {
  after(unregisterAll);

  it("returns the API this process imports, the same object on every call", () => {
    const api = loadOpenTelemetryApi();
    assert.equal(loadOpenTelemetryApi(), api);
    // One instance with the test's own import (ES module or CommonJS alike),
    // so what the application registers is what Kit reads.
    assert.equal(api.trace, trace);
    assert.equal(api.context, context);
    assert.equal(api.metrics, metrics);
    assert.equal(api.propagation, propagation);
  });

  it("reaches the SDK the application registered", () => {
    trace.setGlobalTracerProvider(new TracerProvider());
    const span = loadOpenTelemetryApi().trace.getTracer("test").startSpan("s");
    const api = loadOpenTelemetryApi();
    assert.equal(api.isSpanContextValid(span.spanContext()), true);
    span.end();
  });
});

// In the npm packages for Node.js the API is loaded on the first call (in
// Deno and in browsers it is imported with core). Node.js lists what
// require() and require(esm) loaded in require.cache: the API is absent
// after core is imported and present once loadOpenTelemetryApi() ran.
const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
describe("loadOpenTelemetryApi() in the npm package for Node.js", () => {
  it("loads @opentelemetry/api on the first call, not when core is imported", {
    skip: isNpmPass() && isNode
      ? false
      : "only the npm package for Node.js defers the API (Deno imports it with core)",
  }, async () => {
    const result = await runChild(`
import { createRequire } from "node:module";
const cache = createRequire(process.argv[1]).cache;
const loaded = () => Object.keys(cache).filter((file) => file.includes("/@opentelemetry/api/")).length > 0;
const core = await import(CORE);
const atImport = loaded();
const api = core.loadOpenTelemetryApi();
console.log(JSON.stringify({ atImport, afterCall: loaded(), hasTrace: typeof api.trace.getTracer }));
`);
    assert.equal(result.code, 0, result.out);
    assert.deepEqual(printed(result), {
      atImport: false,
      afterCall: true,
      hasTrace: "function",
    });
  });
});

// A server bundled into one file may carry its own copy of the API and the
// SDK but not Kit's dependencies: Kit's package, here alone in a folder with
// no node_modules, must then record nothing rather than fail, and say why.
describe("loadOpenTelemetryApi() when the API cannot be loaded", () => {
  it(
    "answers not registered, warns once, and throws a DependencyLoadError naming the fix",
    {
      skip: isNpmPass()
        ? false
        : "only the npm packages load the API on first use (Deno imports it with core)",
    },
    async () => {
      // The loader (internal/, transpiled beside the tests) and core's
      // package, alone in a folder with no @opentelemetry/api to find.
      const internal = fileURLToPath(INTERNAL);
      const corePackage = dirname(dirname(fileURLToPath(moduleUrl("core"))));
      const dir = await mkdtemp(join(tmpdir(), "kit-otel-missing-"));
      try {
        const isCjs = fileURLToPath(moduleUrl("core")).includes("/script/");
        const copy = join(dir, "_kit_internal");
        await cp(internal, copy, { recursive: true });
        await writeFile(
          join(copy, "package.json"),
          JSON.stringify({ type: isCjs ? "commonjs" : "module" }),
        );
        await cp(
          corePackage,
          join(dir, "node_modules", "@vendor", "kit-core"),
          {
            recursive: true,
          },
        );
        const result = await runChildScript(
          `
const warnings = [];
console.warn = (text) => warnings.push(String(text));
globalThis[Symbol.for("opentelemetry.js.api.1")] = { version: "1.9.0", trace: {} };
const core = await import(${
            JSON.stringify(
              pathToFileURL(join(copy, "telemetry", "open_telemetry.js")).href,
            )
          });
// The flavour of core the loader's copy requires or imports.
const { DependencyLoadError } = ${
            isCjs
              ? '(await import("node:module")).createRequire(process.argv[1])("@vendor/kit-core")'
              : 'await import("@vendor/kit-core")'
          };
const answers = [core.isOpenTelemetryRegistered("trace"), core.isOpenTelemetryRegistered("trace")];
let error;
try { core.loadOpenTelemetryApi(); } catch (caught) { error = caught; }
console.log(JSON.stringify({
  answers, warnings: warnings.length, warning: warnings[0] ?? "",
  name: error?.name, isClass: error instanceof DependencyLoadError,
  dependency: error?.dependency, packageName: error?.packageName, message: error?.message ?? "",
}));
`,
          {
            dir,
            // Bun installs a missing package on the fly where no node_modules
            // folder exists, unless told not to.
            runtimeArgs: "Bun" in globalThis ? ["--no-install"] : [],
          },
        );
        assert.equal(result.code, 0, result.out);
        const seen = lastJson(result);
        assert.deepEqual(seen.answers, [false, false]);
        assert.equal(seen.warnings, 1, "one warning, not one per call");
        assert.match(
          String(seen.warning),
          /OpenTelemetry SDK is registered, but Kit records no telemetry: @vendor\/kit-core could not load its dependency '@opentelemetry\/api'/,
        );
        assert.equal(seen.name, "DependencyLoadError");
        assert.equal(seen.isClass, true);
        assert.equal(seen.dependency, "@opentelemetry/api");
        assert.equal(seen.packageName, "@vendor/kit-core");
        assert.match(
          String(seen.message),
          /Install it beside @vendor\/kit-core \(npm install @opentelemetry\/api\); when bundling the application, keep @vendor\/kit-core external/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

// Every package bundles its own copy of the loader (internal/ is bundled into
// each package that uses it): the copies share one load, and one warning
// when it fails, through a registered symbol of the global scope.
describe("loadOpenTelemetryApi() in several packages' copies", () => {
  it("loads once and warns once for all copies", {
    skip: isNpmPass()
      ? false
      : "only the npm packages load the API on first use (Deno imports it with core)",
  }, async () => {
    const internal = fileURLToPath(INTERNAL);
    const corePackage = dirname(dirname(fileURLToPath(moduleUrl("core"))));
    const isCjs = fileURLToPath(moduleUrl("core")).includes("/script/");
    const dir = await mkdtemp(join(tmpdir(), "kit-otel-copies-"));
    try {
      for (const copy of ["first", "second"]) {
        await cp(internal, join(dir, copy), { recursive: true });
        await writeFile(
          join(dir, copy, "package.json"),
          JSON.stringify({ type: isCjs ? "commonjs" : "module" }),
        );
      }
      await cp(corePackage, join(dir, "node_modules", "@vendor", "kit-core"), {
        recursive: true,
      });
      const url = (copy: string): string =>
        JSON.stringify(
          pathToFileURL(join(dir, copy, "telemetry", "open_telemetry.js")).href,
        );
      const result = await runChildScript(
        `
const warnings = [];
console.warn = (text) => warnings.push(String(text));
globalThis[Symbol.for("opentelemetry.js.api.1")] = { version: "1.9.0", trace: {} };
const first = await import(${url("first")});
const second = await import(${url("second")});
const answers = [first.isOpenTelemetryRegistered("trace"), second.isOpenTelemetryRegistered("trace")];
console.log(JSON.stringify({ distinct: first !== second, answers, warnings: warnings.length }));
`,
        {
          dir,
          runtimeArgs: "Bun" in globalThis ? ["--no-install"] : [],
        },
      );
      assert.equal(result.code, 0, result.out);
      assert.deepEqual(lastJson(result), {
        distinct: true,
        answers: [false, false],
        warnings: 1,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("createScopeTracer()", () => {
  after(unregisterAll);

  it("answers undefined until a tracer provider registers, then that provider's own tracer, and a new one after a swap", () => {
    unregisterAll();
    const tracerOf = createScopeTracer("test-scope");
    const api = loadOpenTelemetryApi();
    assert.equal(tracerOf(api), undefined);

    const first = new TracerProvider();
    trace.setGlobalTracerProvider(first);
    const tracer = tracerOf(api);
    assert.ok(tracer !== undefined);
    // Taken from behind the API's proxy: not the proxy's ProxyTracer.
    assert.notEqual(tracer.constructor.name, "ProxyTracer");
    assert.equal(tracerOf(api), tracer, "kept while the provider stays");
    const span = tracer.startSpan("s");
    assert.equal(span.isRecording(), true);
    span.end();

    trace.disable();
    assert.equal(tracerOf(api), undefined);
    trace.setGlobalTracerProvider(new TracerProvider());
    const second = tracerOf(api);
    assert.ok(second !== undefined);
    assert.notEqual(second, tracer, "made again for the new provider");
  });

  it("NON_RECORDING_SPAN records nothing and carries the API's invalid span context", () => {
    const api = loadOpenTelemetryApi();
    assert.equal(NON_RECORDING_SPAN.isRecording(), false);
    assert.equal(
      api.isSpanContextValid(NON_RECORDING_SPAN.spanContext()),
      false,
    );
    assert.deepEqual(
      NON_RECORDING_SPAN.spanContext(),
      api.INVALID_SPAN_CONTEXT,
    );
    assert.equal(NON_RECORDING_SPAN.setAttribute("a", 1), NON_RECORDING_SPAN);
    assert.equal(NON_RECORDING_SPAN.addEvent("e"), NON_RECORDING_SPAN);
    assert.equal(
      NON_RECORDING_SPAN.setStatus({ code: api.SpanStatusCode.ERROR }),
      NON_RECORDING_SPAN,
    );
    NON_RECORDING_SPAN.end();
  });

  it("HTTP_DURATION_BUCKETS are the semantic conventions' advice, frozen", () => {
    assert.deepEqual(
      [...HTTP_DURATION_BUCKETS],
      [
        0.005,
        0.01,
        0.025,
        0.05,
        0.075,
        0.1,
        0.25,
        0.5,
        0.75,
        1,
        2.5,
        5,
        7.5,
        10,
      ],
    );
    assert.equal(Object.isFrozen(HTTP_DURATION_BUCKETS), true);
  });
});

describe("memoizeLast()", () => {
  it("makes the value once per key, and again when the key changes", () => {
    const made: object[] = [];
    const valueOf = memoizeLast((key: object) => {
      made.push(key);
      return { of: key };
    });
    const a = {};
    const b = {};
    const first = valueOf(a);
    assert.equal(valueOf(a), first);
    const second = valueOf(b);
    assert.notEqual(second, first);
    assert.equal(second.of, b);
    assert.notEqual(valueOf(a), first, "made again for a key seen before");
    assert.deepEqual(made, [a, b, a]);
  });

  it("keeps an undefined result and an undefined key like any other", () => {
    let calls = 0;
    const valueOf = memoizeLast((key: string | undefined) => {
      calls++;
      return key === undefined ? undefined : key.length;
    });
    assert.equal(valueOf(undefined), undefined);
    assert.equal(valueOf(undefined), undefined);
    assert.equal(calls, 1);
    assert.equal(valueOf("abc"), 3);
    assert.equal(calls, 2);
  });

  it("makes nothing it keeps when make throws", () => {
    let fail = true;
    const valueOf = memoizeLast((key: number) => {
      if (fail) throw new Error("not yet");
      return key * 2;
    });
    assert.throws(() => valueOf(1), /not yet/);
    fail = false;
    assert.equal(valueOf(1), 2);
  });
});
