// The logging of the running applications, for hostLogger(): each
// application with a logging step adds what that step returned when step 2
// completes and removes it at the very end of its stop. The newest one still
// running answers, as for the static ServiceLocator calls.
//
// The list lives on globalThis under a Symbol.for key, so that two copies of
// the platform package in one process (a nested node_modules, the ESM and
// the CommonJS build) see the same applications.

const KEY = Symbol.for("@vendor/kit-platform/host-logging/1");

/** One running application's logging step value. */
export interface HostLogging {
  /** What the logging step returned (a LoggerManager, or a logger). */
  readonly value: unknown;
}

function running(): HostLogging[] {
  const holder = globalThis as { [KEY]?: HostLogging[] };
  return holder[KEY] ??= [];
}

/** Adds an application's logging; the returned function removes it. */
export function registerHostLogging(value: unknown): () => void {
  const entry: HostLogging = { value };
  running().push(entry);
  return () => {
    const list = running();
    const index = list.lastIndexOf(entry);
    if (index >= 0) list.splice(index, 1);
  };
}

/** The logging of the newest running application, if any. */
export function currentHostLogging(): HostLogging | undefined {
  const list = (globalThis as { [KEY]?: HostLogging[] })[KEY];
  return list === undefined ? undefined : list[list.length - 1];
}
