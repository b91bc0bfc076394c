// The layers of a ConfigurationManager and their merge, the part .NET calls
// the configuration root: the registered sources in the order they were
// added, the merged tree (before and after the schema), the flattened index
// `getValue` reads, and validation against a schema. Watching, the reload
// queue and change events live in _configuration_reloads.ts; explain(),
// diagnose() and health in _configuration_inspection.ts.
import {
  isPromiseLike,
  maskSecretText,
  SECRET_MASK,
  type SecretMatcher,
} from "../core/mod.ts";
import type {
  ConfigurationEntry,
  ConfigurationProvider,
} from "./providers/configuration_provider.ts";
import { ConfigurationValidationError } from "./schema/configuration_validation_error.ts";
import type { ConfigurationSchema } from "./schema/configuration_schema.ts";
import { UnsafeConfigurationKeyError } from "./unsafe_configuration_key_error.ts";
import {
  buildLayer,
  cloneJson,
  emptyRoot,
  fromPlain,
  type IndexEntry,
  type LeafInfo,
  mergeNodes,
  type Replacement,
  type Snapshot,
  snapshot,
} from "./_tree.ts";
import { UnsafeJsonError, validateAgainst } from "./schema/_schema.ts";
import { secretLiterals } from "./_secrets.ts";
import { annotateFailures, type HintSource } from "./schema/_hints.ts";
import { whereToSet } from "./schema/_where_to_set.ts";
import { withFileSecrets } from "./providers/_secret_files.ts";

/** One registered source. */
export interface Registration {
  readonly provider: ConfigurationProvider;
  /** Position among the sources, for ties of `priority`. */
  readonly order: number;
  /** `false` once its first load returned a promise. */
  sync: boolean;
  /** What its last successful load supplied. */
  entries: readonly ConfigurationEntry[] | undefined;
  /** The first load of an asynchronous source, while it runs. */
  pending: Promise<void> | undefined;
  /** Added after a load and not part of a load since. */
  addedAfterLoad: boolean;
}

/** An array a higher source replaced whole at a merge. */
export interface ReplacedArray {
  /** The key of the array, lower-cased. */
  readonly key: string;
  /** The key as the winning source spells it. */
  readonly spelled: string;
  /** The source that supplied the array in force. */
  readonly by: string;
  /** The source whose array it replaced. */
  readonly over: string;
}

/** What a successful load swapped in. */
export interface LoadResult {
  /** The effective leaves before, `undefined` on the first load. */
  readonly previous: LeafInfo[] | undefined;
  /** The effective leaves now. */
  readonly current: LeafInfo[];
}

/** What the layers need from their manager. */
export interface LayersOptions {
  readonly schema: ConfigurationSchema | undefined;
  readonly secrets: SecretMatcher;
  /** The hints for failing keys, given the arrays replaced at the merge. */
  readonly hints: (replacedArrays: readonly ReplacedArray[]) => HintSource;
  /** Told the new index each time a load swaps one in. */
  readonly swapped: (index: Map<string, IndexEntry>) => void;
}

const SCHEMA_DEFAULT = "schema default";
const MAX_ALIASES = 1024;
const MAX_EARLY_READS = 50;

/** The sources of one manager, merged into the values it serves. */
export class ConfigurationLayers {
  #options: LayersOptions;
  #registrations: Registration[] = [];
  #nextOrder = 0;
  #index: Map<string, IndexEntry> = new Map();
  #aliases = 0;
  #raw: Snapshot = snapshot(emptyRoot());
  #effective: Snapshot = this.#raw;
  #loaded = false;
  #earlyReads = new Set<string>();
  #replacedArrays: readonly ReplacedArray[] = [];
  // The provider whose load() threw an error that does not name its source.
  #failedSources = new WeakMap<object, string>();

  constructor(options: LayersOptions) {
    this.#options = options;
  }

  /** `true` once a load has succeeded. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** The registered sources, in the order they were added. */
  get registrations(): readonly Registration[] {
    return this.#registrations;
  }

  /** The effective configuration (after the schema, when one is set). */
  get effective(): Snapshot {
    return this.#effective;
  }

  /** The arrays a higher source replaced whole at the last merge. */
  get replacedArrays(): readonly ReplacedArray[] {
    return this.#replacedArrays;
  }

  /** Keys read before the first load, up to a bound. */
  get earlyReads(): ReadonlySet<string> {
    return this.#earlyReads;
  }

  /** The registered providers, in the order they were added. */
  providers(): ConfigurationProvider[] {
    return this.#registrations.map((entry) => entry.provider);
  }

  /** The source a failed load's error came from, when it did not say. */
  failedSourceOf(error: object): string | undefined {
    return this.#failedSources.get(error);
  }

  /**
   * The index values are read from: keys as the sources spell them and
   * lower-cased, plus the other spellings read so far. A load replaces it
   * and says so through `swapped`; between loads only `find` adds to it.
   * Read a key with `index.get(key) ?? find(key)`.
   */
  get index(): Map<string, IndexEntry> {
    return this.#index;
  }

  /**
   * The index entry of a key not found as spelled: looked up lower-cased,
   * and that spelling remembered (up to a bound). Before the first load, a
   * key not found is remembered for diagnose().
   */
  find(key: string): IndexEntry | undefined {
    const lower = key.toLowerCase();
    const entry = lower === key ? undefined : this.#index.get(lower);
    if (entry !== undefined) {
      if (this.#aliases < MAX_ALIASES) {
        this.#index.set(key, entry);
        this.#aliases++;
      }
      return entry;
    }
    if (!this.#loaded && this.#earlyReads.size < MAX_EARLY_READS) {
      this.#earlyReads.add(key);
    }
    return undefined;
  }

  /**
   * Registers a source and reads it; see ConfigurationManager.addProvider.
   * A provider that fails to load is not kept.
   */
  add(provider: ConfigurationProvider): void | Promise<void> {
    const registration = this.#register(provider);
    let result: ReturnType<ConfigurationProvider["load"]>;
    try {
      result = provider.load();
      if (!isPromiseLike(result)) buildLayer(result, provider.name);
    } catch (error) {
      this.#unregister(registration);
      throw error;
    }
    if (!isPromiseLike(result)) {
      registration.entries = result;
      return;
    }
    registration.sync = false;
    const pending = Promise.resolve(result).then(
      (entries) => {
        buildLayer(entries, provider.name);
        registration.entries = entries;
        registration.pending = undefined;
      },
    ).catch((error: unknown) => {
      this.#unregister(registration);
      throw error;
    });
    registration.pending = pending;
    return pending;
  }

  // An environment source is added synchronously, as before: its variables
  // are checked at once (an unsafe name throws here). When `<NAME>_FILE`
  // variables make its load asynchronous, that first read is dropped and
  // the source stays one that loadConfiguration() reads again, which then
  // reports a missing file (and waits for the files).
  /** Registers a source that must be added without waiting. */
  addSynchronously(provider: ConfigurationProvider): void {
    const registration = this.#register(provider);
    try {
      const result = provider.load();
      if (isPromiseLike(result)) {
        Promise.resolve(result).catch(() => {});
        return;
      }
      buildLayer(result, provider.name);
      registration.entries = result;
    } catch (error) {
      this.#unregister(registration);
      throw error;
    }
  }

  /**
   * Reads the sources (all of them when `full`, else only the synchronous
   * ones and those not read yet), merges them in precedence order, applies
   * the schema, and swaps the result in only when all of that succeeded.
   */
  async load(full: boolean): Promise<LoadResult> {
    const registrations = [...this.#registrations];
    const loaded = await Promise.all(
      registrations.map(async (registration) => {
        if (!full && registration.pending !== undefined) {
          await registration.pending;
          return registration.entries!;
        }
        if (!full && !registration.sync && registration.entries !== undefined) {
          return registration.entries;
        }
        try {
          return await registration.provider.load();
        } catch (error) {
          if (error !== null && typeof error === "object") {
            this.#failedSources.set(error, registration.provider.name);
          }
          throw error;
        }
      }),
    );
    const ordered = registrations
      .map((registration, i) => ({ registration, entries: loaded[i] }))
      .sort((a, b) =>
        (a.registration.provider.priority ?? 0) -
          (b.registration.provider.priority ?? 0) ||
        a.registration.order - b.registration.order
      );
    let root = emptyRoot();
    const replaced: Replacement[] = [];
    for (const { registration, entries } of ordered) {
      root = mergeNodes(
        root,
        buildLayer(entries, registration.provider.name),
        replaced,
      );
    }
    const replacedArrays = replaced.map((item) => ({
      key: item.key.toLowerCase(),
      spelled: item.key,
      by: item.by,
      over: item.over,
    }));
    const raw = snapshot(root);
    const schema = this.#options.schema;
    const effective = schema === undefined
      ? raw
      : this.#applySchema(schema, raw, replacedArrays);

    // Commit: everything above succeeded, swap in one step.
    registrations.forEach((registration, i) => {
      registration.entries = loaded[i];
      registration.addedAfterLoad = false;
    });
    this.#replacedArrays = replacedArrays;
    const previous = this.#loaded ? this.#effective.leaves : undefined;
    this.#raw = raw;
    this.#effective = effective;
    this.#index = effective.index;
    this.#aliases = 0;
    this.#loaded = true;
    this.#options.swapped(effective.index);
    return { previous, current: effective.leaves };
  }

  /**
   * Validates the merged values (or one section of them) against a schema;
   * see ConfigurationManager.bind.
   */
  bind(schema: ConfigurationSchema, section: string | undefined): unknown {
    const raw = this.#raw;
    let input: unknown = raw.tree;
    if (section !== undefined && section !== "") {
      const entry = raw.index.get(section.toLowerCase());
      input = entry === undefined ? undefined : cloneJson(entry.value);
    }
    return this.#validate(
      schema,
      input,
      raw,
      section ?? "",
      this.#replacedArrays,
    ).output;
  }

  #register(provider: ConfigurationProvider): Registration {
    const registration: Registration = {
      provider,
      order: this.#nextOrder++,
      sync: true,
      entries: undefined,
      pending: undefined,
      addedAfterLoad: this.#loaded,
    };
    this.#registrations.push(registration);
    return registration;
  }

  #unregister(registration: Registration): void {
    const position = this.#registrations.indexOf(registration);
    if (position >= 0) this.#registrations.splice(position, 1);
  }

  #applySchema(
    schema: ConfigurationSchema,
    raw: Snapshot,
    replacedArrays: readonly ReplacedArray[],
  ): Snapshot {
    const { coerced, output } = this.#validate(
      schema,
      raw.tree,
      raw,
      "",
      replacedArrays,
    );
    const combined = overlay(coerced, output) as Record<string, unknown>;
    return snapshot(
      fromPlain(
        combined,
        (key) => sourceIn(raw, key) ?? SCHEMA_DEFAULT,
      ),
    );
  }

  #validate(
    schema: ConfigurationSchema,
    input: unknown,
    raw: Snapshot,
    section: string,
    replacedArrays: readonly ReplacedArray[],
  ): { coerced: unknown; output: unknown } {
    try {
      const secrets = withFileSecrets(
        this.#options.secrets,
        raw.leaves,
        SECRET_MASK,
      );
      let literals: string[] | undefined;
      return validateAgainst(schema, input, {
        isSecret: (key) => secrets.isSecret(key),
        sourceOf: (key) => sourceIn(raw, key),
        whereToSet: (key) => whereToSet(key, this.providers()),
        mask: (text) =>
          maskSecretText(
            text,
            literals ??= secretLiterals(raw.leaves, secrets),
          ),
      }, section);
    } catch (error) {
      if (error instanceof UnsafeJsonError) {
        throw new UnsafeConfigurationKeyError(
          error.segment,
          "JSON text inside a configuration value",
        );
      }
      if (error instanceof ConfigurationValidationError) {
        // Each line gets what Kit knows about its key.
        throw new ConfigurationValidationError(
          annotateFailures(error.failures, this.#options.hints(replacedArrays)),
          error.hint,
        );
      }
      throw error;
    }
  }
}

// The source of a key in the merged (pre-schema) configuration: its own, or
// that of the string it was parsed from (JSON text in an environment value).
function sourceIn(raw: Snapshot, key: string): string | undefined {
  const lower = key.toLowerCase();
  const own = raw.index.get(lower);
  if (own !== undefined) return own.source;
  let cut = lower.lastIndexOf(":");
  while (cut > 0) {
    const ancestor = raw.index.get(lower.slice(0, cut));
    if (ancestor !== undefined) {
      return ancestor.tree ? undefined : ancestor.source;
    }
    cut = lower.lastIndexOf(":", cut - 1);
  }
  return undefined;
}

// `top` over `base`: objects merge per key, anything else in `top` wins.
function overlay(base: unknown, top: unknown): unknown {
  if (
    top === null || typeof top !== "object" || Array.isArray(top) ||
    base === null || typeof base !== "object" || Array.isArray(base)
  ) {
    return top === undefined ? base : top;
  }
  const result: Record<string, unknown> = {
    ...(base as Record<string, unknown>),
  };
  for (const [key, value] of Object.entries(top)) {
    result[key] = overlay(result[key], value);
  }
  return result;
}
