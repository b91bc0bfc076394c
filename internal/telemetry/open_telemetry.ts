import { apiAvailable, loadApi } from "#internal/telemetry/open_telemetry_api";

/**
 * A part of OpenTelemetry a process can register globally: the context
 * manager (`context`, which makes spans active across calls), the tracer
 * provider (`trace`), the meter provider (`metrics`) or the propagator
 * (`propagation`).
 */
export type OpenTelemetryPart = "context" | "trace" | "metrics" | "propagation";

/**
 * The `@opentelemetry/api` module, as `import * as api from
 * "@opentelemetry/api"` gives it.
 */
export type OpenTelemetryApi = typeof import("@opentelemetry/api");

// Where every copy of @opentelemetry/api 1.x keeps what is registered: one
// object per process under this key (it names only the major version, so
// every 1.x copy shares it), made at the first registration; unregistering
// deletes its fields, not the object.
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

type Registry =
  | Partial<Record<OpenTelemetryPart, unknown>>
  | null
  | undefined;

const GLOBAL = globalThis as unknown as Record<symbol, Registry>;

// Reading a property the global object does not have walks its prototype
// chain and costs several times a read of one it has, even holding
// undefined. The API treats an undefined slot as an absent one (it
// registers with `slot ?? { version }` and reads with `slot?.[part]`), so
// the slot is defined when this module loads, holding undefined, if nothing
// is there yet (at load rather than at the first call, so that the function
// holds no extra branch and stays small enough to be inlined).
try {
  if (!(REGISTRY in GLOBAL)) GLOBAL[REGISTRY] = undefined;
} catch {
  // A sealed or frozen global object (SES lockdown): the slot stays
  // missing, which only makes each read slower; nothing can register
  // there either.
}

/**
 * Tells whether a part of OpenTelemetry is registered in the process: a
 * cheap test for the hot paths of instrumented libraries, to skip all
 * tracing work while nothing would record it. Without a registered context
 * manager no span is ever active (so a library need not ask for the active
 * span); without a tracer or meter provider, spans and measurements go
 * nowhere.
 *
 * It reads the registry `@opentelemetry/api` 1.x keeps on `globalThis`
 * under `Symbol.for("opentelemetry.js.api.1")` directly, on every call,
 * without loading the API (see {@linkcode loadOpenTelemetryApi}), and keeps
 * nothing: an SDK registered later, unregistered again (`trace.disable()`,
 * `context.disable()`), or a registry removed by a test harness is seen at
 * the next call. The key holds only the major version, so every copy of
 * the API 1.x in the process (any minor version, ESM or CommonJS) shares
 * it, and so does Deno's built-in OpenTelemetry (`OTEL_DENO=true`), which
 * registers there before any module runs.
 *
 * Loading this module defines that slot, holding `undefined`, when it is
 * absent (the API treats that as no registry), because reading a missing
 * property of the global object is several times slower than reading one it
 * has: a call then costs one property read of `globalThis` (and one of the
 * registry once something is registered), and is small enough to be
 * inlined. On a sealed or frozen `globalThis` (SES lockdown)
 * the slot cannot be defined: the answer is still right, each call is just
 * slower; the same holds after a test harness deletes the slot.
 *
 * In Node.js and Bun, the npm package's first call that finds something
 * registered also loads the API (see {@linkcode loadOpenTelemetryApi}), so a
 * `true` always means the API is ready. If it cannot be loaded (typically a
 * server bundled into one file with its own copy of the API but without
 * Kit's dependencies), the answer is `false` from then on and a warning
 * says why once: Kit records nothing rather than failing the work it
 * instruments.
 *
 * @param part What to look for; `"context"` (a context manager) when
 * omitted.
 * @returns `true` when that part is registered with `@opentelemetry/api`
 * 1.x (or by the runtime), else `false`.
 *
 * @example Skipping span work while no context manager is registered
 * ```ts
 * import { isOpenTelemetryRegistered } from "./open_telemetry.ts";
 *
 * function traceIds(): string | undefined {
 *   if (!isOpenTelemetryRegistered("context")) return undefined;
 *   // …only now ask @opentelemetry/api for the active span.
 *   return undefined;
 * }
 * traceIds();
 * ```
 */
export function isOpenTelemetryRegistered(
  part: OpenTelemetryPart = "context",
): boolean {
  const registry = GLOBAL[REGISTRY];
  return registry != null && registry[part] != null && apiAvailable();
}

/**
 * Returns the OpenTelemetry API (`@opentelemetry/api` 1.x), loading it on the
 * first call. With {@linkcode isOpenTelemetryRegistered} it lets a library
 * instrument itself without paying for the API in a process that never
 * registers an SDK: test first, load only when something would record.
 *
 * In Node.js and Bun the npm packages load the API synchronously on that
 * first call (once, and never in a process without an SDK, since loading it
 * is a noticeable part of a cold start), and from an ES module they get the same instance as the
 * application's own `import "@opentelemetry/api"`. In Deno and in browser
 * bundles the API is imported with this module and the call only returns it.
 *
 * @returns The `@opentelemetry/api` module.
 * @throws {DependencyLoadError} When `@opentelemetry/api` cannot be loaded
 * (not installed beside this package, or left out of a bundle); the message
 * names the cause and what to do.
 *
 * @example Starting a span only while a tracer provider is registered
 * ```ts
 * import {
 *   isOpenTelemetryRegistered,
 *   loadOpenTelemetryApi,
 * } from "./open_telemetry.ts";
 *
 * function traced<T>(name: string, fn: () => T): T {
 *   if (!isOpenTelemetryRegistered("trace")) return fn();
 *   const span = loadOpenTelemetryApi().trace.getTracer("my-library")
 *     .startSpan(name);
 *   try {
 *     return fn();
 *   } finally {
 *     span.end();
 *   }
 * }
 * traced("work", () => 42);
 * ```
 */
export function loadOpenTelemetryApi(): OpenTelemetryApi {
  return loadApi();
}
