// Browser flavour of the host's HTTP server: a page cannot listen.
import type {
  Listener,
  ListenOptions,
  RuntimeHandler,
} from "./_server_common.ts";

export type { Listener, ListenOptions, RuntimeHandler };

/** Always rejects: a page cannot listen. */
export function listen(
  _handler: RuntimeHandler,
  _options: ListenOptions,
): Promise<Listener> {
  return Promise.reject(
    new Error("serve needs a server runtime (Deno, Node.js or Bun)"),
  );
}
