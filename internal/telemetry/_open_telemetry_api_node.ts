// Node.js and Bun flavour of the OpenTelemetry API loader (chosen by
// scripts/_variants.ts in place of _open_telemetry_api_deno.ts): the API is
// loaded on the first call, synchronously, so a process that never registers
// an SDK never pays for loading it (figure in BENCHMARKS.md, "Cold import in Node").
//
// requireDependency resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../require_dependency.ts";
import type * as Api from "@opentelemetry/api";

declare const __filename: string | undefined;

// Every Kit package bundles its own copy of this file (internal/ is bundled
// into each package that uses it), so the loaded API and the failure live on
// one object of the global scope, under a registered symbol every copy
// finds: the API is resolved once per process, and a failure is warned about
// once, not once per package.
interface LoaderState {
  api: typeof Api | undefined;
  // Set when the API could not be loaded: telemetry is then off for good.
  unavailable: boolean;
}

const STATE_KEY = Symbol.for("@vendor/kit.openTelemetryApiLoader");
const scope = globalThis as unknown as Record<symbol, LoaderState | undefined>;
const state: LoaderState = scope[STATE_KEY] ?? shareState();

function shareState(): LoaderState {
  const made: LoaderState = { api: undefined, unavailable: false };
  try {
    scope[STATE_KEY] = made;
  } catch {
    // A sealed or frozen global object (SES lockdown): this copy keeps its
    // own state, which only costs a load (and a warning) per package.
  }
  return made;
}

/**
 * Returns `@opentelemetry/api`, loading it on the first call.
 *
 * @throws {DependencyLoadError} When it cannot be loaded.
 */
export function loadApi(): typeof Api {
  if (state.api === undefined) {
    try {
      state.api = requireDependency(
        "@opentelemetry/api",
        "@vendor/kit-core",
        import.meta,
        typeof __filename === "string" ? __filename : undefined,
      ) as typeof Api;
    } catch (error) {
      state.unavailable = true;
      throw error;
    }
  }
  return state.api;
}

/**
 * Whether the API can be used, loading it the first time something is
 * registered: an application bundled with its own copy of the API and the
 * SDK, but without Kit's dependencies (a bundler cannot follow a load by
 * name), must not fail its requests because Kit cannot record them. It then
 * records nothing and says so once.
 */
export function apiAvailable(): boolean {
  if (state.api !== undefined) return true;
  if (state.unavailable) return false;
  try {
    loadApi();
    return true;
  } catch (error) {
    globalThis.console.warn(
      `An OpenTelemetry SDK is registered, but Kit records no telemetry: ${
        (error as Error).message
      }`,
    );
    return false;
  }
}
