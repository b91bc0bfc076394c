// The OpenTelemetry API loader of Deno and browsers
// (#internal/telemetry/open_telemetry_api; Node.js and Bun load it on first use instead,
// see scripts/_variants.ts): the API is imported with the module; Deno resolves
// it once, from its own cache, and a browser bundler, which has no synchronous
// loader, includes it either way.
import * as api from "@opentelemetry/api";

/** Returns `@opentelemetry/api`. */
export function loadApi(): typeof api {
  return api;
}

/** Whether the API can be used: always, since it came with the module. */
export function apiAvailable(): boolean {
  return true;
}
