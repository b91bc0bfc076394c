// Browser flavour of the OpenTelemetry API loader (chosen by
// scripts/build_npm.ts under the `browser` condition): the API is imported
// with the module, as in Deno, since a browser bundler includes it in the
// bundle either way and has no synchronous loader.
import * as api from "@opentelemetry/api";

/** Returns `@opentelemetry/api`. */
export function loadApi(): typeof api {
  return api;
}

/** Whether the API can be used: always, since it came with the module. */
export function apiAvailable(): boolean {
  return true;
}
