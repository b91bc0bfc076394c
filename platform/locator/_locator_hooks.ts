// What the application host needs from a ServiceLocator beyond its public
// API: to take over the disposal of the services it created (in its own
// order, with a deadline), and to make it the one the static methods read
// while the application runs. Not re-exported.

/** A service a locator created, with its name. */
export interface CreatedService {
  name: string;
  value: unknown;
}

/** Internal access to one locator. */
export interface LocatorHooks {
  /** Hands over what the locator created, oldest first, and forgets it. */
  takeCreated(): CreatedService[];
  /**
   * Refuses every later creation (the application stopped: a service made
   * now would never be disposed).
   */
  close(reason: string): void;
  /**
   * The locator serves an application that is starting: the static
   * ServiceLocator methods read it until `close`.
   */
  open(): void;
}

/** Filled by each ServiceLocator's constructor. */
export const locatorHooks: WeakMap<object, LocatorHooks> = new WeakMap();
