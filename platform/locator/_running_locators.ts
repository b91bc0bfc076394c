// The locators of the applications started and not stopped yet, oldest
// first: the static ServiceLocator methods read the newest. And the hint a
// static read gets when it finds nothing while no application runs. Not
// re-exported.
import { ServiceNotFoundError } from "./service_not_found_error.ts";

const running: object[] = [];

/** An application started on `locator`: the static reads use it. */
export function openRunning(locator: object): void {
  running.push(locator);
}

/** The application on `locator` stopped. */
export function closeRunning(locator: object): void {
  const index = running.lastIndexOf(locator);
  if (index >= 0) running.splice(index, 1);
}

/** The locator of the newest running application, if any. */
export function newestRunning<L extends object>(): L | undefined {
  return running.at(-1) as L | undefined;
}

/**
 * A name unknown to the standalone default locator most often means the
 * call ran before Application.start or after stop: say so.
 */
export function explainNotRunning(error: unknown): unknown {
  if (
    error instanceof ServiceNotFoundError &&
    running.length === 0 && error.creating.length === 0
  ) {
    error.message += "\nNo application is running: the static " +
      "ServiceLocator methods read the services of the application started " +
      "with Application.start or Application.run until it stops. Call " +
      "them while it runs, use app.services, or register the service " +
      "with ServiceLocator.register.";
  }
  return error;
}
