// Where a Kit provider's delivery errors go: the provider's own `onError`
// when one was given; else the `onError` of the AnalyticsManager it was
// added to; else the running application's logging (kit.analytics), else
// console.error. Providers register their route here and the manager hands
// its handler over, without a public method for it.
import { hostLogger } from "../platform/mod.ts";

type ErrorHandler = (error: Error) => void;

/** The error target of one provider. */
export class ErrorRoute {
  readonly #own: ErrorHandler | undefined;
  #adopted: ErrorHandler | undefined;

  /** Takes the provider's own `onError`, if any. */
  constructor(own: ErrorHandler | undefined) {
    this.#own = own;
  }

  /** Reports one error to the handler in force. */
  readonly report = (error: Error): void => {
    (this.#own ?? this.#adopted ?? reportByDefault)(error);
  };

  /** The manager's handler, used when the provider has none of its own. */
  adopt(handler: ErrorHandler | undefined): void {
    this.#adopted = handler;
  }
}

/**
 * Where an analytics error goes when nobody asked for it: the running
 * application's logging under `kit.analytics`, else the console.
 */
export function reportByDefault(error: Error): void {
  const logger = hostLogger("kit.analytics");
  if (logger !== undefined) logger.error(error.message, { error });
  else console.error(error);
}

const routes = new WeakMap<object, ErrorRoute>();

/** Registers a provider's route. */
export function registerErrorRoute(provider: object, route: ErrorRoute): void {
  routes.set(provider, route);
}

/**
 * Hands a manager's `onError` to a provider (or takes it back with
 * `undefined`); does nothing for providers that are not Kit's.
 */
export function adoptErrors(
  provider: object,
  handler: ErrorHandler | undefined,
): void {
  routes.get(provider)?.adopt(handler);
}
