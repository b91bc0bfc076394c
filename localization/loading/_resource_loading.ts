// Catalog loading for LocalizationManager: one load per culture at a time,
// a fresh cache entry used as is, the last good translations served when a
// reload fails, and the sources of a whole fallback chain gathered with the
// cultures the provider lacks skipped. Not public.
import { hostLogger } from "../../platform/mod.ts";
import type { Source } from "../messages/_compiler.ts";
import type { LocalizationCache } from "../localization_cache.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";
import type {
  LocalizationProvider,
  LocalizationResources,
} from "./localization_provider.ts";

type Loaded =
  | { readonly culture: string; readonly texts: LocalizationResources }
  | { readonly culture: string; readonly error: unknown };

/** Loads the translations of cultures through a provider and a cache. */
export class ResourceLoader {
  readonly #provider: LocalizationProvider;
  readonly #cache: LocalizationCache | undefined;
  readonly #onLoadError:
    | ((error: unknown, culture: string) => void)
    | undefined;
  readonly #loading = new Map<string, Promise<LocalizationResources>>();

  constructor(
    provider: LocalizationProvider,
    cache: LocalizationCache | undefined,
    onLoadError: ((error: unknown, culture: string) => void) | undefined,
  ) {
    this.#provider = provider;
    this.#cache = cache;
    this.#onLoadError = onLoadError;
  }

  // Loads every culture of a chain; those the provider does not have are
  // skipped, and the chain fails only when none is found.
  async sourcesOf(chain: readonly string[]): Promise<Source[]> {
    const loaded = await Promise.all(chain.map((name) => this.#settle(name)));
    const sources: Source[] = [];
    let notFound: unknown;
    for (const result of loaded) {
      if ("texts" in result) {
        sources.push({
          culture: result.culture,
          texts: result.texts,
          compiled: new Map(),
        });
      } else if (
        result.error instanceof LocalizationLoadError && result.error.notFound
      ) {
        notFound ??= result.error;
      } else {
        throw result.error;
      }
    }
    if (sources.length === 0) throw notFound;
    return sources;
  }

  #settle(culture: string): Promise<Loaded> {
    return this.#load(culture).then(
      (texts) => ({ culture, texts }),
      (error: unknown) => ({ culture, error }),
    );
  }

  // At most one load per culture at a time; a fresh cache entry is used as
  // is.
  #load(culture: string): Promise<LocalizationResources> {
    const cached = this.#cache?.get(culture);
    if (cached !== undefined) return Promise.resolve(cached);
    let loading = this.#loading.get(culture);
    if (loading === undefined) {
      loading = this.#loadFromProvider(culture).finally(() => {
        this.#loading.delete(culture);
      });
      this.#loading.set(culture, loading);
    }
    return loading;
  }

  async #loadFromProvider(culture: string): Promise<LocalizationResources> {
    try {
      const texts = await this.#provider.load(culture);
      this.#cache?.set(culture, texts);
      return texts;
    } catch (error) {
      const stale = this.#cache?.getStale(culture);
      if (stale === undefined) throw error;
      if (this.#onLoadError !== undefined) this.#onLoadError(error, culture);
      else {
        hostLogger("kit.localization")?.warning(
          `Reloading the translations of '${culture}' failed; the last good ones are served: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { culture, error },
        );
      }
      return stale;
    }
  }
}
