// What the runtime flavours of the host's HTTP server share
// (_server_deno.ts, _server_node.ts, _server_browser.ts): the listener's
// shape, its URL, the error of a failed listen, what the server itself
// reports, letting go of a body past the limit, and waiting until a
// deadline.
import { consoleLine } from "../host/_application_support.ts";
import { hostLogger } from "../host/host_logger.ts";

/** What the server needs to know to listen. */
export interface ListenOptions {
  port: number;
  hostname: string;
  /** Milliseconds to receive a request's headers (not on Deno). */
  headersTimeout: number;
  /** Milliseconds an idle keep-alive connection stays open (not on Deno). */
  idleTimeout: number;
}

/** The handler the runtime calls, with what it passes after the request. */
export type RuntimeHandler = (
  request: Request,
  ...args: unknown[]
) => Response | Promise<Response>;

/** A server that listens. */
export interface Listener {
  /** `http://host:port` as bound (loopback for a wildcard address). */
  readonly url: string;
  /** Which server: `Deno.serve`, `node:http` or `Bun.serve`. */
  readonly kind: string;
  /**
   * Stops accepting, lets the requests in flight finish and closes idle
   * connections; at `signal` (the deadline) it closes what is left.
   * Resolves `false` when the deadline came first.
   */
  close(signal: AbortSignal): Promise<boolean>;
}

/** `http://host:port` for a bound address; a wildcard reads as loopback. */
export function urlOf(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0"
    ? "127.0.0.1"
    : hostname === "::"
    ? "[::1]"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  return `http://${host}:${port}`;
}

/** The error of a listen that failed, naming the address. */
export function listenError(
  hostname: string,
  port: number,
  error: unknown,
): Error {
  const code = (error as { code?: string } | null)?.code;
  const inUse = code === "EADDRINUSE" ||
    (error instanceof Error && error.name === "AddrInUse");
  const address = `${
    hostname.includes(":") ? `[${hostname}]` : hostname
  }:${port}`;
  return new Error(
    inUse
      ? `cannot listen on ${address}: the address is already in use; stop what listens there or choose another port (server:port, PORT)`
      : `cannot listen on ${address}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    { cause: error },
  );
}

/** Waits for `promise` until `signal` aborts; `false` when it did first. */
export function until(
  promise: Promise<unknown>,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      },
    );
  });
}

/**
 * Lets go of the rest of a request body answered 413 (`Connection: close`):
 * a reader the body limit took is cancelled; a body not read at all is left
 * to the runtime, which closes the connection after the answer (Node.js,
 * Bun). `args` are the runtime's arguments after the request (unused here).
 */
export function dropBody(
  body: ReadableStream<Uint8Array> | ReadableStreamDefaultReader<Uint8Array>,
  _args: readonly unknown[],
): void {
  if (!(body instanceof ReadableStream)) body.cancel().catch(() => {});
}

/**
 * Reports an error of the server itself (not of a request, which app.handle
 * reports): to the running application's logging, else to the console,
 * masked and escaped either way.
 */
export function reportServerError(message: string, error: unknown): void {
  const logger = hostLogger("kit.application");
  if (logger !== undefined) logger.error(message, { error });
  else console.error(consoleLine(message, { error }));
}
