/**
 * How the application's HTTP server listens and protects itself, for the
 * `server` option of `Application.start`/`Application.run`. Each option
 * given here wins over the configuration key named beside it (read from
 * what start-up step 1 returned), which wins over the default. Values from
 * the configuration may be strings (environment variables are): they are
 * read as whole numbers, and a value that is not one fails start-up with
 * the key and the source that set it.
 *
 * @example Usage
 * ```ts
 * import type { ServerOptions } from "@vendor/kit/platform";
 *
 * const server: ServerOptions = {
 *   port: 8080,
 *   drainDelay: 5_000, // behind a load balancer
 *   maxBodySize: 10 * 1024 * 1024,
 * };
 * ```
 */
export interface ServerOptions {
  /**
   * The port; 0 asks for any free one (`app.url` tells which). Else
   * `server:port`, else the `PORT` environment variable, else 3000.
   */
  port?: number;
  /** The address to bind. Else `server:host`, else `0.0.0.0`. */
  hostname?: string;
  /**
   * Milliseconds `stop()` keeps serving after readiness turned 503, so load
   * balancers stop sending before the server stops accepting. Else
   * `server:drainDelay`, else 0.
   */
  drainDelay?: number;
  /**
   * Mount `GET /health`, `/health/live` and `/health/ready` in front of the
   * handler. Default `true`.
   */
  health?: boolean;
  /**
   * The largest request body in bytes; a larger one is answered `413` with a
   * JSON `{ message }`, judged on `Content-Length` and while the body is
   * read. Else `server:maxBodySize`, else 1 MiB (1048576).
   */
  maxBodySize?: number;
  /**
   * The largest upload in bytes: the body limit of a request whose
   * `Content-Type` is `multipart/form-data` or `application/octet-stream`
   * (the others keep `maxBodySize`). Else `features:maxFileUploadSize`,
   * else `maxBodySize`.
   */
  maxUploadSize?: number;
  /**
   * Milliseconds a connection may take to send a request's headers. Else
   * `server:headersTimeout`, else 60000 (as Node.js and nginx).
   */
  headersTimeout?: number;
  /**
   * Milliseconds an idle keep-alive connection stays open. Else
   * `server:idleTimeout`, else 5000 (as Node.js).
   */
  idleTimeout?: number;
}
