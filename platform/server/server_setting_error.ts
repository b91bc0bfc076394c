import { markKitError, markSettingError } from "../../internal/error_marks.ts";

/**
 * A setting of the application host that cannot be used: a `server:*` key
 * (`server:port`, `server:host`, `server:maxBodySize`, ...),
 * `features:maxFileUploadSize`, `host:shutdownTimeout`, or the `server`
 * option of the same name. The message names the key, quotes the value
 * masked and bounded, and says where it came from, for example
 * `server:port must be a whole number from 0 to 65535: "abc" (from
 * APP_SERVER__PORT)`. `Application.start` throws it as the cause of its
 * `ApplicationStartError` (step 1).
 *
 * It is a `RangeError`, as these errors always were, so code that catches
 * one keeps working; and it is a Kit error (`code` `server_setting`) and a
 * `SettingError` of `@vendor/kit/core` (its `key` and `source`) all the
 * same.
 *
 * @example Usage
 * ```ts
 * import { Application, ServerSettingError } from "@vendor/kit/platform";
 *
 * try {
 *   await Application.start({
 *     configuration: () => ({ host: { shutdownTimeout: "soon" } }),
 *   });
 * } catch (error) {
 *   const cause = (error as Error).cause;
 *   if (cause instanceof ServerSettingError) {
 *     console.log(cause.key); // "host:shutdownTimeout"
 *     console.log(cause instanceof RangeError); // true
 *   }
 * }
 * ```
 */
export class ServerSettingError extends RangeError {
  /** What went wrong, as a stable string: `server_setting`. */
  readonly code = "server_setting";
  /** The setting at fault (`server:port`, `host:shutdownTimeout`). */
  readonly key: string;
  /**
   * Where its value came from: a variable's name (`APP_SERVER__PORT`,
   * `PORT`), a file (`appsettings.json`), or "the configuration";
   * `undefined` when the value was passed in code (the `server` option).
   */
  readonly source: string | undefined;

  /**
   * Creates the error.
   *
   * @param key The setting at fault.
   * @param message The whole message (it names the key, the value and where
   * it came from).
   * @param source Where the value came from; `undefined` for a value passed
   * in code.
   */
  constructor(key: string, message: string, source?: string) {
    super(message);
    this.name = "ServerSettingError";
    this.key = key;
    this.source = source;
  }
}

// It keeps the RangeError base these errors always had; the marks make it a
// KitError and a SettingError all the same.
markKitError(ServerSettingError);
markSettingError(ServerSettingError);
