/**
 * Wraps a function of one key so that it runs again only when the key
 * changes: the result for the last key is kept and returned while the
 * function is called with that same key (compared with `Object.is`).
 *
 * Made for values derived from a global that may be replaced, such as an
 * instrumentation's tracer or counter, which must be made again from the
 * new provider when an OpenTelemetry SDK is registered, replaced or
 * removed: pass the current provider as the key on every use.
 *
 * @typeParam K The key (usually an object).
 * @typeParam V What the function makes from it.
 * @param make Makes the value of a key; not called again for the same key.
 * @returns A function returning `make(key)`, computed once per new key.
 *
 * @example An instrument made again when the meter provider changes
 * ```ts
 * import { memoizeLast } from "./memoize_last.ts";
 *
 * interface Provider { getMeter(name: string): { name: string } }
 * const meterOf = memoizeLast((provider: Provider) => provider.getMeter("app"));
 *
 * const provider: Provider = { getMeter: (name) => ({ name }) };
 * meterOf(provider) === meterOf(provider); // true: made once
 * ```
 */
export function memoizeLast<K, V>(make: (key: K) => V): (key: K) => V {
  let made = false;
  let lastKey: K;
  let lastValue: V;
  return (key: K): V => {
    if (!made || !Object.is(key, lastKey)) {
      lastValue = make(key);
      lastKey = key;
      made = true;
    }
    return lastValue;
  };
}
