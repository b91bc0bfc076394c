// RemoteStoreCacheProvider.fromConfiguration's reading: the `cache:redis`
// keys (as the configuration section declares them) filling the options
// that code left unset.
import {
  type IConfiguration,
  kitConfigurationSections,
} from "../../config/mod.ts";
import {
  findDeclared,
  readSetting,
  type SettingProblem,
} from "../../internal/settings/setting.ts";
import type { RemoteStoreCacheProviderOptions } from "./remote_store_cache_provider.ts";
import { CacheSettingError } from "../cache_setting_error.ts";
import { configuredSources } from "./_remote_store_settings.ts";
import { unquoted } from "./_shown_value.ts";

// The value as these messages have always shown it, bare (`: abc`), but
// masked and bounded as Kit quotes a setting (a value read from a file is
// `***` whole).
function shown(problem: SettingProblem): string {
  return unquoted(problem.quoted ?? "");
}

/**
 * `options` completed from the `cache:redis` keys of `config`.
 *
 * @throws {CacheSettingError} For a number or flag that does not read as
 * one, or a sentinel name without nodes (or the reverse): a `RangeError`.
 */
export function remoteStoreOptionsFromConfiguration(
  config: IConfiguration,
  options: RemoteStoreCacheProviderOptions,
): RemoteStoreCacheProviderOptions {
  const read = (name: string): unknown => {
    const key = `cache:redis:${name}`;
    return config.hasValue(key) ? config.getValue<unknown>(key) : undefined;
  };
  const text = (name: string): string | undefined => {
    const found = findDeclared(config, {
      keys: [`cache:redis:${name}`],
      emptyIsUnset: true,
    });
    return found === undefined ? undefined : String(found.value);
  };
  const number = (name: string): number | undefined =>
    readSetting<number>(
      config,
      { keys: [`cache:redis:${name}`], type: "number", emptyIsUnset: true },
      (problem) =>
        new CacheSettingError(
          problem.key,
          `${problem.key} must be a number: ${shown(problem)}`,
          problem.found?.source,
        ),
    );
  const flag = (name: string): boolean | undefined =>
    readSetting<boolean>(
      config,
      { keys: [`cache:redis:${name}`], type: "boolean", emptyIsUnset: true },
      (problem) =>
        new CacheSettingError(
          problem.key,
          `${problem.key} must be true or false: ${shown(problem)}`,
          problem.found?.source,
        ),
    );
  // The keys read and their types are the configuration's declaration of
  // the `cache:redis` section, the one appConfigSchema checks by.
  const fromConfig: Record<string, unknown> = {};
  for (
    const [name, declared] of Object.entries(
      kitConfigurationSections.cache.redis,
    )
  ) {
    if (!("type" in declared)) continue; // cluster, sentinel: below
    fromConfig[name] = declared.type === "integer"
      ? number(name)
      : declared.type === "boolean"
      ? flag(name)
      : text(name);
  }
  // A node list given as an array (a JSON file) or comma-separated (a
  // variable).
  const nodes = (name: string): unknown => {
    const value = read(name);
    if (Array.isArray(value)) return value.map(String);
    return text(name);
  };
  const clusterNodes = nodes("cluster:nodes");
  if (clusterNodes !== undefined) {
    fromConfig.cluster = { nodes: clusterNodes };
  }
  const sentinelNodes = nodes("sentinel:nodes");
  const sentinelName = text("sentinel:name");
  if (sentinelNodes !== undefined || sentinelName !== undefined) {
    if (sentinelNodes === undefined || sentinelName === undefined) {
      // The key at fault is the one missing: it has no source.
      throw new CacheSettingError(
        `cache:redis:sentinel:${sentinelName === undefined ? "name" : "nodes"}`,
        `cache:redis:sentinel:name and cache:redis:sentinel:nodes go together (REDIS_SENTINEL_NAME, REDIS_SENTINELS): only ${
          sentinelName === undefined ? "the nodes are" : "the name is"
        } set`,
      );
    }
    fromConfig.sentinel = {
      name: sentinelName,
      nodes: sentinelNodes,
      password: text("sentinel:password"),
    };
  }
  if (options.cluster !== undefined || options.sentinel !== undefined) {
    // A topology given in code wins whole.
    delete fromConfig.cluster;
    delete fromConfig.sentinel;
  }
  const merged: Record<string, unknown> = { ...options };
  // Where each filled option came from, for the constructor's checks.
  const sources = new Map<string, string>();
  for (const [name, value] of Object.entries(fromConfig)) {
    if (merged[name] === undefined && value !== undefined) {
      merged[name] = value;
      const found = findDeclared(config, {
        keys: [`cache:redis:${name}`],
        emptyIsUnset: true,
      });
      if (found !== undefined) sources.set(name, found.source);
    }
  }
  // A topology filled in from the configuration: its parts by their option
  // names (`cluster.nodes`), as the topology's checks name them.
  const nested: Record<string, string[]> = {
    cluster: ["nodes"],
    sentinel: ["name", "nodes", "password"],
  };
  for (const [section, parts] of Object.entries(nested)) {
    if (fromConfig[section] === undefined) continue;
    for (const part of parts) {
      const found = findDeclared(config, {
        keys: [`cache:redis:${section}:${part}`],
        emptyIsUnset: true,
      });
      if (found !== undefined) sources.set(`${section}.${part}`, found.source);
    }
  }
  const result = merged as RemoteStoreCacheProviderOptions;
  configuredSources.set(result, sources);
  return result;
}
