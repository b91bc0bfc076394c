// Browser flavour of the host's HTTP server: a page cannot listen.
import {
  dropBody,
  type Listener,
  type ListenOptions,
  type RuntimeHandler,
} from "./_server_common.ts";

export { dropBody };
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
