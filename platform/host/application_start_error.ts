import { KitError } from "../../core/mod.ts";
import { messageOf } from "./_application_support.ts";
import { STEP_NAMES } from "./_steps.ts";

/**
 * Thrown (as a rejection) by `Application.start` when a start-up step fails.
 * The message names the step (`Start-up step 1 (configuration) failed: …`)
 * and keeps the cause's whole text, such as every line of a configuration
 * validation error. Everything created before the failure has been disposed,
 * newest first, by the time it rejects.
 *
 * @example Usage
 * ```ts
 * import { Application, ApplicationStartError } from "@vendor/kit/platform";
 *
 * try {
 *   await Application.start({
 *     configuration: () => {
 *       throw new Error("Missing required configuration: api:baseUrl");
 *     },
 *   });
 * } catch (error) {
 *   if (error instanceof ApplicationStartError) console.log(error.step); // 1
 * }
 * ```
 */
export class ApplicationStartError extends KitError {
  /** What went wrong, as a stable string: `application_start`. */
  readonly code = "application_start";

  /** The step that failed: 1 configuration, 2 logging, 3 platform, 4 services. */
  readonly step: 1 | 2 | 3 | 4;
  /** The service whose creation or start failed, when one did. */
  readonly serviceName: string | undefined;

  /**
   * Creates the error.
   *
   * @param step The step that failed.
   * @param cause What the step threw or rejected with.
   * @param serviceName The eager or hosted service that failed, if any.
   */
  constructor(step: 1 | 2 | 3 | 4, cause: unknown, serviceName?: string) {
    super(
      `Start-up step ${step} (${STEP_NAMES[step - 1]}) failed: ${
        messageOf(cause)
      }`,
      { cause },
    );
    this.name = "ApplicationStartError";
    this.step = step;
    this.serviceName = serviceName;
  }
}
