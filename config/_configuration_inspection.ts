// What a ConfigurationManager says about itself: explain() and the debug
// view, the masked plain copy toJSON() gives, diagnose() with the keys it
// knows, the hints added to validation failures, and checkHealth(). Every
// value and source printed here goes through the secret masking first.
import {
  maskSecretText,
  SECRET_MASK,
  type SecretMatcher,
} from "../core/mod.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import type {
  ConfigurationDiagnostic,
  ConfigurationDiagnosticContext,
} from "./providers/configuration_provider.ts";
import type { ConfigurationSchema } from "./schema/configuration_schema.ts";
import type { ExplainedValue } from "./explained_value.ts";
import { EnvironmentVariableProvider } from "./providers/environment_variable_provider.ts";
import {
  StandardVariableProvider,
  standardVariables,
} from "./providers/standard_variable_provider.ts";
import { appConfigSchema } from "./schema/app_config_schema.ts";
import {
  buildLayer,
  cloneJson,
  emptyRoot,
  mergeNodes,
  snapshot,
} from "./_tree.ts";
import { schemaKnows } from "./schema/_schema.ts";
import { maskTree } from "./_secrets.ts";
import { readEnvironment } from "#config/providers/environment";
import { KIT_OPTIONAL_KEYS } from "./schema/_kit_keys.ts";
import {
  withFileSecrets,
  withoutFileSuffix,
} from "./providers/_secret_files.ts";
import type {
  ConfigurationLayers,
  ReplacedArray,
} from "./_configuration_layers.ts";
import type { ConfigurationReloads } from "./_configuration_reloads.ts";

/** What the inspection needs from its manager. */
export interface InspectionOptions {
  readonly layers: ConfigurationLayers;
  readonly reloads: ConfigurationReloads;
  readonly secrets: SecretMatcher;
  readonly schema: ConfigurationSchema | undefined;
  readonly environment: string | undefined;
  readonly environmentSource: string | undefined;
}

// PREFIX_SECTION__PROPERTY: a prefix, one underscore, then a `__` level.
const LOOKS_HIERARCHICAL =
  /^[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]__[A-Za-z0-9]/;

/** Reports on one manager's values, sources and state. */
export class ConfigurationInspection {
  #options: InspectionOptions;

  constructor(options: InspectionOptions) {
    this.#options = options;
  }

  /** See ConfigurationManager.explain. */
  explain(): ExplainedValue[] {
    const { leaves } = this.#options.layers.effective;
    const secrets = withFileSecrets(this.#options.secrets, leaves, SECRET_MASK);
    return leaves.map((leaf) => ({
      key: leaf.key,
      value: secrets.maskValue(leaf.key, cloneJson(leaf.value)),
      source: maskSecretText(leaf.source),
    }));
  }

  /** See ConfigurationManager.toJSON. */
  toJSON(): Record<string, unknown> {
    const { tree, leaves } = this.#options.layers.effective;
    return maskTree(
      tree,
      "",
      withFileSecrets(this.#options.secrets, leaves, SECRET_MASK),
    ) as Record<string, unknown>;
  }

  /** The debug view of explained values, one `key = value (source)` line each. */
  debugView(values: readonly ExplainedValue[]): string {
    const lines = values.map(({ key, value, source }) =>
      `${key} = ${
        value === SECRET_MASK ? SECRET_MASK : JSON.stringify(value)
      } (${source})`
    );
    return lines.length === 0 ? "(no configuration values)" : lines.join("\n");
  }

  /** See ConfigurationManager.diagnose. */
  diagnose(): ConfigurationDiagnostic[] {
    const { layers } = this.#options;
    const findings: ConfigurationDiagnostic[] = [];
    const known = this.#knownKeys();
    const schema = this.#options.schema ?? appConfigSchema;
    const context: ConfigurationDiagnosticContext = {
      environment: this.#options.environment,
      environmentSource: this.#options.environmentSource,
      isKnownKey: (key: string): boolean =>
        known.has(key.toLowerCase()) || schemaKnows(schema, key.split(":")),
    };
    for (const registration of layers.registrations) {
      const provider = registration.provider;
      if (typeof provider.diagnose === "function") {
        findings.push(...provider.diagnose(context));
      }
    }
    findings.push(...this.#diagnoseMissingEnvironmentSources());
    for (const key of layers.earlyReads) {
      findings.push({
        code: "read-before-load",
        key,
        message:
          `"${key}" was read before loadConfiguration() finished; await config.loadConfiguration() before reading values`,
      });
    }
    for (const registration of layers.registrations) {
      if (!registration.addedAfterLoad) continue;
      findings.push({
        code: "added-after-load",
        message: `Source ${
          maskSecretText(registration.provider.name)
        } was added after loadConfiguration() and is not in effect yet; call config.loadConfiguration() (or config.reload()) again`,
      });
    }
    return findings;
  }

  /** See ConfigurationManager.checkHealth. */
  checkHealth(): HealthCheckResult {
    const failure = this.#options.reloads.lastFailure;
    if (!this.#options.layers.loaded) {
      return {
        status: "unhealthy",
        detail: failure === undefined
          ? "the configuration is not loaded yet; await config.loadConfiguration()"
          : {
            source: failure.source,
            error: failure.message,
            failedAt: failure.at.toISOString(),
            effect: "nothing is readable: the configuration never loaded",
          },
      };
    }
    if (failure !== undefined) {
      return {
        status: "degraded",
        detail: {
          source: failure.source,
          error: failure.message,
          failedAt: failure.at.toISOString(),
          effect: "the last good configuration stays in force",
        },
      };
    }
    return { status: "healthy" };
  }

  /**
   * The hints of failing keys. `diagnose` runs once, when first needed: the
   * manager passes its own, so the hints see what its callers see.
   */
  hints(
    replacedArrays: readonly ReplacedArray[],
    diagnose: () => ConfigurationDiagnostic[],
  ): (key: string) => string[] {
    let findings: ConfigurationDiagnostic[] | undefined;
    return (key) => {
      if (findings === undefined) {
        try {
          findings = diagnose();
        } catch {
          // A hint is a courtesy; the failure line stands without it.
          findings = [];
        }
      }
      return hintsFor(key, findings, replacedArrays);
    };
  }

  #knownKeys(): Set<string> {
    const known = new Set<string>();
    for (
      const key of [...Object.values(standardVariables), ...KIT_OPTIONAL_KEYS]
    ) {
      const segments = key.split(":");
      for (let i = 1; i <= segments.length; i++) {
        known.add(segments.slice(0, i).join(":").toLowerCase());
      }
    }
    let root = emptyRoot();
    for (const registration of this.#options.layers.registrations) {
      const provider = registration.provider;
      if (
        provider instanceof EnvironmentVariableProvider ||
        registration.entries === undefined
      ) continue;
      try {
        root = mergeNodes(
          root,
          buildLayer(registration.entries, provider.name),
        );
      } catch {
        // Reported by loadConfiguration; nothing to add here.
      }
    }
    for (const key of snapshot(root).index.keys()) known.add(key.toLowerCase());
    return known;
  }

  #diagnoseMissingEnvironmentSources(): ConfigurationDiagnostic[] {
    const providers = this.#options.layers.providers();
    const findings: ConfigurationDiagnostic[] = [];
    const { variables } = readEnvironment();
    const names = Object.keys(variables);
    if (!providers.some((p) => p instanceof EnvironmentVariableProvider)) {
      const byPrefix = new Map<string, string[]>();
      for (const name of names) {
        if (!LOOKS_HIERARCHICAL.test(name)) continue;
        const prefix = name.slice(0, name.indexOf("_"));
        const group = byPrefix.get(prefix) ?? [];
        group.push(name);
        byPrefix.set(prefix, group);
      }
      for (const [prefix, group] of byPrefix) {
        const shown = group.slice(0, 3).join(", ");
        findings.push({
          code: "no-environment-source",
          variable: group[0],
          message: `${group.length} environment variable${
            group.length === 1 ? "" : "s"
          } with the prefix ${prefix} look like configuration (${shown}${
            group.length > 3 ? ", …" : ""
          }) but no environment source was added; call config.addEnvironmentVariables("${prefix}")`,
        });
      }
    }
    if (!providers.some((p) => p instanceof StandardVariableProvider)) {
      const set = names.filter((name) =>
        Object.hasOwn(standardVariables, name) ||
        Object.hasOwn(standardVariables, withoutFileSuffix(name) ?? "")
      );
      if (set.length > 0) {
        findings.push({
          code: "no-environment-source",
          variable: set[0],
          message: `Standard variable${set.length === 1 ? "" : "s"} ${
            set.slice(0, 3).join(", ")
          }${set.length > 3 ? ", …" : ""} ${
            set.length === 1 ? "is" : "are"
          } set but ignored; call config.addStandardVariables()`,
        });
      }
    }
    return findings;
  }
}

// What Kit knows about why a key failed validation: a variable written with
// `_` where `__` would name it, or an array that a higher source replaced
// whole.
function hintsFor(
  key: string,
  findings: readonly ConfigurationDiagnostic[],
  replacedArrays: readonly ReplacedArray[],
): string[] {
  const lower = key.toLowerCase();
  const hints: string[] = [];
  for (const finding of findings) {
    if (
      finding.code === "single-underscore" && finding.key !== undefined &&
      (finding.key.toLowerCase() === lower ||
        finding.key.toLowerCase().startsWith(lower + ":")) &&
      finding.variable !== undefined && finding.suggestion !== undefined
    ) {
      hints.push(
        `${finding.variable} is set; did you mean ${finding.suggestion}?`,
      );
    }
  }
  for (const array of replacedArrays) {
    if (lower === array.key || lower.startsWith(array.key + ":")) {
      hints.push(
        `${
          maskSecretText(array.by)
        } replaced the whole array ${array.spelled} from ${
          maskSecretText(array.over)
        } (arrays are replaced, not merged: set every item's values in one source)`,
      );
    }
  }
  return hints;
}
