// The clock of each LocalizationCache given one (`clock` or `now`), for the
// manager's translators (which expire with the translations they were built
// from). Not public.
import type { LocalizationCache } from "./localization_cache.ts";

export const cacheClocks: WeakMap<LocalizationCache, () => number> =
  new WeakMap();
