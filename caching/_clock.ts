// The `clock` option of CacheManager and MemoryCacheProvider: a Clock, or
// (the older form, kept) a function returning milliseconds, whose timers are
// then the system's.
import { type Clock, systemClock } from "../core/mod.ts";

function isClock(value: unknown): value is Clock {
  return typeof value === "object" && value !== null &&
    typeof (value as Clock).now === "function" &&
    typeof (value as Clock).setTimeout === "function" &&
    typeof (value as Clock).clearTimeout === "function";
}

/** The clock to use; `undefined` when none was given. */
export function clockOption(
  owner: string,
  value: (() => number) | Clock | undefined,
): Clock | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "function") {
    return {
      now: value,
      setTimeout: systemClock.setTimeout,
      clearTimeout: systemClock.clearTimeout,
    };
  }
  if (isClock(value)) return value;
  throw new TypeError(
    `${owner} clock must be a function returning milliseconds or a Clock (now, setTimeout, clearTimeout): ${
      String(value)
    }`,
  );
}
