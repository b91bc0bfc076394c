// Deno flavour of the OpenTelemetry API loader (the npm build uses
// _open_telemetry_api_node.ts for Node.js and Bun and
// _open_telemetry_api_browser.ts for browsers): the API is imported with the
// module; Deno resolves it once, from its own cache.
import * as api from "@opentelemetry/api";

/** Returns `@opentelemetry/api`. */
export function loadApi(): typeof api {
  return api;
}

/** Whether the API can be used: always, since it came with the module. */
export function apiAvailable(): boolean {
  return true;
}
