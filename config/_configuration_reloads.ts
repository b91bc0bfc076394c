// When a ConfigurationManager's values change, the part .NET spreads over
// its reload tokens: the watchers of the sources, the queue that runs one
// load or reload at a time, the debounce of watched changes, the `changed`
// events (secret values masked) and the last failure that health reports.
// What a load reads and merges is _configuration_layers.ts's business.
import {
  maskSecretText,
  SECRET_MASK,
  type SecretMatcher,
} from "../core/mod.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import type { Signal } from "../platform/mod.ts";
import type { Span } from "@opentelemetry/api";
import { ConfigurationValidationError } from "./schema/configuration_validation_error.ts";
import type { ConfigurationChange } from "./configuration_change.ts";
import type {
  ConfigurationLayers,
  Registration,
} from "./_configuration_layers.ts";
import { cloneJson, type LeafInfo, sameLeaf } from "./_tree.ts";
import { secretLiterals } from "./_secrets.ts";
import { withFileSecrets } from "./providers/_secret_files.ts";
import { inReloadSpan, reloadFailed, reloadSucceeded } from "./_telemetry.ts";

/** The last load or reload that failed, secrets masked. */
export interface LoadFailure {
  readonly source: string;
  readonly message: string;
  readonly at: Date;
}

/** What the reloads need from their manager. */
export interface ReloadsOptions {
  readonly layers: ConfigurationLayers;
  readonly secrets: SecretMatcher;
  /** Where changes and failures are dispatched. */
  readonly changed: Signal<readonly ConfigurationChange[]>;
  /** Milliseconds a watched source must stay quiet before a reload. */
  readonly reloadDelay: number;
}

/** Runs the loads and reloads of one manager, one at a time. */
export class ConfigurationReloads {
  #options: ReloadsOptions;
  #queue: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #lastFailure: LoadFailure | undefined;
  #watching = new WeakSet<Registration>();
  #stopWatching: (() => void | Promise<void>)[] = [];

  constructor(options: ReloadsOptions) {
    this.#options = options;
  }

  /** The last load or reload, when it failed; cleared by a success. */
  get lastFailure(): LoadFailure | undefined {
    return this.#lastFailure;
  }

  /** Runs ConfigurationManager.loadConfiguration in the queue. */
  async load(): Promise<void> {
    await this.#enqueue(async () => {
      let changes: ConfigurationChange[];
      try {
        changes = await this.#load(false);
      } catch (error) {
        this.#recordFailure(error);
        throw error;
      }
      if (changes.length > 0) this.#options.changed.dispatch(changes);
    });
  }

  /** Runs ConfigurationManager.reload in the queue. */
  reload(): Promise<readonly ConfigurationChange[]> {
    return this.#enqueue(() =>
      inReloadSpan("call", async (span) => {
        try {
          const changes = await this.#load(true);
          reloadSucceeded(span, changes.length);
          if (changes.length > 0) this.#options.changed.dispatch(changes);
          return changes;
        } catch (error) {
          this.#options.changed.dispatch([this.#recordFailure(error, span)]);
          throw error;
        }
      })
    );
  }

  /**
   * Stops the watchers and a pending reload, then waits for the one
   * running, if any.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const stopping = this.#stopWatching.map((stop) => stop());
    this.#stopWatching = [];
    await Promise.all(stopping);
    await this.#queue;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.then(() => {}, () => {});
    return run;
  }

  async #load(full: boolean): Promise<ConfigurationChange[]> {
    const { previous, current } = await this.#options.layers.load(full);
    this.#lastFailure = undefined;
    await this.#startWatching();
    return previous === undefined ? [] : this.#diff(previous, current);
  }

  #diff(before: LeafInfo[], after: LeafInfo[]): ConfigurationChange[] {
    const old = new Map(before.map((leaf) => [leaf.key.toLowerCase(), leaf]));
    const changes: ConfigurationChange[] = [];
    const secrets = withFileSecrets(
      this.#options.secrets,
      [...before, ...after],
      SECRET_MASK,
    );
    const mask = (key: string, value: unknown): unknown =>
      value === undefined
        ? undefined
        : secrets.maskValue(key, cloneJson(value));
    for (const leaf of after) {
      const lower = leaf.key.toLowerCase();
      const previous = old.get(lower);
      old.delete(lower);
      if (previous !== undefined && sameLeaf(previous.value, leaf.value)) {
        continue;
      }
      changes.push({
        key: leaf.key,
        oldValue: mask(leaf.key, previous?.value),
        newValue: mask(leaf.key, leaf.value),
        source: maskSecretText(leaf.source),
      });
    }
    for (const previous of old.values()) {
      changes.push({
        key: previous.key,
        oldValue: mask(previous.key, previous.value),
        newValue: undefined,
        source: maskSecretText(previous.source),
      });
    }
    return changes;
  }

  // Remembers a failed load or reload for checkHealth() and returns the
  // failure entry of the `changed` signal.
  // A reload's failure also goes on its span and into
  // kit.config.reload.failures.
  #recordFailure(error: unknown, span?: Span): ConfigurationChange {
    const change = this.#failure(error);
    this.#lastFailure = {
      source: maskSecretText(change.source),
      message: maskSecretText(
        change.error!.message,
        secretLiterals(
          this.#options.layers.effective.leaves,
          this.#options.secrets,
        ),
      ),
      at: new Date(),
    };
    if (span !== undefined) {
      reloadFailed(
        span,
        this.#lastFailure.source,
        change.error!.name,
        this.#lastFailure.message,
      );
    }
    return change;
  }

  #failure(error: unknown): ConfigurationChange {
    const failure = error instanceof Error ? error : new Error(String(error));
    const source = (failure as { source?: unknown }).source;
    const failedSource = this.#options.layers.failedSourceOf(failure);
    return {
      key: "",
      oldValue: undefined,
      newValue: undefined,
      source: typeof source === "string"
        ? maskSecretText(source)
        : failedSource !== undefined
        ? maskSecretText(failedSource)
        : failure instanceof ConfigurationValidationError
        ? "schema"
        : "configuration",
      error: failure,
    };
  }

  async #startWatching(): Promise<void> {
    // The live list: a source registered while a watcher starts is watched
    // too.
    for (const registration of this.#options.layers.registrations) {
      const provider = registration.provider;
      if (
        this.#watching.has(registration) || typeof provider.watch !== "function"
      ) {
        continue;
      }
      this.#watching.add(registration);
      try {
        const stop = await provider.watch(() => this.#scheduleReload());
        if (this.#closed) await stop?.();
        else if (stop !== undefined) this.#stopWatching.push(stop);
      } catch {
        // A source that cannot be watched is still read by reload().
      }
    }
  }

  #scheduleReload(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = unrefTimer(
      setTimeout(() => {
        this.#timer = undefined;
        if (this.#closed) return;
        this.#enqueue(() =>
          inReloadSpan("watch", async (span) => {
            try {
              const changes = await this.#load(true);
              reloadSucceeded(span, changes.length);
              if (changes.length > 0) this.#options.changed.dispatch(changes);
            } catch (error) {
              this.#options.changed.dispatch([
                this.#recordFailure(error, span),
              ]);
            }
          })
        );
      }, this.#options.reloadDelay),
    );
  }
}
