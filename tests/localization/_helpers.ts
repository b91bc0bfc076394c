// Test helpers of the localization tests: a provider that counts loads and
// can hold chosen cultures until released, and a few small utilities.
import {
  LocalizationLoadError,
  type LocalizationProvider,
  type LocalizationResources,
} from "../../localization/mod.ts";

export type Texts = Record<string, Record<string, string>>;

interface Held {
  readonly culture: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Serves `texts` (culture → flat key → text). Cultures absent from `texts`
 * reject with a not-found LocalizationLoadError. Cultures in `hold` wait until
 * `release(culture)` or `fail(culture, error)`.
 */
export class ControlledProvider implements LocalizationProvider {
  readonly calls: string[] = [];
  readonly hold = new Set<string>();
  readonly failing = new Map<string, unknown>();
  #held: Held[] = [];

  constructor(public texts: Texts) {}

  load(culture: string): Promise<LocalizationResources> {
    this.calls.push(culture);
    const answer = (): Promise<LocalizationResources> => {
      const failure = this.failing.get(culture);
      if (failure !== undefined) return Promise.reject(failure);
      const found = this.texts[culture];
      if (found === undefined) {
        return Promise.reject(
          new LocalizationLoadError({
            culture,
            reason: "no translations for this culture",
            notFound: true,
          }),
        );
      }
      return Promise.resolve(new Map(Object.entries(found)));
    };
    if (!this.hold.has(culture)) return answer();
    return new Promise<void>((resolve, reject) => {
      this.#held.push({ culture, resolve, reject });
    }).then(answer);
  }

  callsFor(culture: string): number {
    return this.calls.filter((name) => name === culture).length;
  }

  pending(culture: string): number {
    return this.#held.filter((held) => held.culture === culture).length;
  }

  release(culture: string): void {
    this.hold.delete(culture);
    const matching = this.#held.filter((held) => held.culture === culture);
    this.#held = this.#held.filter((held) => held.culture !== culture);
    for (const held of matching) held.resolve();
  }

  fail(culture: string, error: unknown): void {
    this.hold.delete(culture);
    const matching = this.#held.filter((held) => held.culture === culture);
    this.#held = this.#held.filter((held) => held.culture !== culture);
    for (const held of matching) held.reject(error);
  }
}

/** Lets pending promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** `Map<culture, Map<key, text>>` from a plain object. */
export function toMaps(texts: Texts): Map<string, Map<string, string>> {
  return new Map(
    Object.entries(texts).map((
      [culture, entries],
    ) => [culture, new Map(Object.entries(entries))]),
  );
}
