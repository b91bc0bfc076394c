// The disposal of what a ServiceLocator created: handed over to the
// application host (which disposes in its own order, with a deadline), or
// disposed by the locator itself, newest first, every service getting its
// turn. Not re-exported.
import { disposeValue } from "./_dispose.ts";
import type { CreatedService } from "./_locator_hooks.ts";
import type { LocatorState } from "./_locator_state.ts";

/** Hands over (and forgets) what the locator created, oldest first. */
export function takeCreated(state: LocatorState): CreatedService[] {
  const created = state.created;
  state.created = [];
  for (const { name, value } of created) {
    if (state.instances.get(name) === value) state.instances.delete(name);
  }
  return created;
}

/**
 * Disposes every service the locator created, newest first, once the
 * creations in flight settled.
 *
 * @throws {AggregateError} When one or more services failed to dispose.
 */
export async function disposeCreated(state: LocatorState): Promise<void> {
  while (state.pending.size > 0) {
    await Promise.allSettled([...state.pending.values()]);
  }
  const created = takeCreated(state);
  const errors: unknown[] = [];
  const failed: string[] = [];
  for (let i = created.length - 1; i >= 0; i--) {
    const { name, value } = created[i];
    try {
      await disposeValue(value);
    } catch (error) {
      errors.push(error);
      failed.push(name);
    }
  }
  if (errors.length > 0) {
    throw new AggregateError(
      errors,
      `Failed to dispose ${errors.length} service(s): ${failed.join(", ")}`,
    );
  }
}
