// Deno flavour of the host's HTTP server: Deno.serve. (scripts/build_npm.ts
// ships _server_node.ts in its place: node:http, or Bun.serve on Bun.)
//
// Deno.serve has no header-read or keep-alive timeout: here headersTimeout
// and idleTimeout are not enforced (docs/platform.md says what to do).

import {
  type Listener,
  listenError,
  type ListenOptions,
  type RuntimeHandler,
  until,
  urlOf,
} from "./_server_common.ts";

export type { Listener, ListenOptions, RuntimeHandler };

/** Starts Deno.serve; resolves once it listens. */
export function listen(
  handler: RuntimeHandler,
  options: ListenOptions,
): Promise<Listener> {
  const { port, hostname } = options;
  const force = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      port,
      hostname,
      signal: force.signal,
      // The host logs its own line.
      onListen: () => {},
    }, handler);
  } catch (error) {
    return Promise.reject(listenError(hostname, port, error));
  }
  return Promise.resolve({
    url: urlOf(server.addr.hostname, server.addr.port),
    kind: "Deno.serve",
    close: async (signal: AbortSignal): Promise<boolean> => {
      const inTime = await until(server.shutdown(), signal);
      if (!inTime) force.abort();
      return inTime;
    },
  });
}
