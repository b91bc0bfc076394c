// The configuration keys the checks read and name, taken from what the
// configuration module declares: `kitConfigurationSections` (every key Kit
// reads, by section: cache, logging, api…) and `standardVariables` (the
// variables besides `APP_…` that set them, such as REDIS_HOST). The doctor
// keeps no list of its own, so a key or variable renamed in the module is
// renamed in its messages too, and a key the module stops declaring fails
// the doctor's tests at once instead of sending users after a dead name.
import {
  type KitConfigurationKey,
  type KitConfigurationSection,
  kitConfigurationSections,
  standardVariables,
} from "../../config/mod.ts";

/** One declared key, with the standard variable that sets it if any. */
export interface DeclaredKey {
  /** The colon key: `cache:redis:host`. */
  readonly key: string;
  /** Its declaration: type, bounds, default. */
  readonly declaration: KitConfigurationKey;
  /** The standard variable that sets it (`REDIS_HOST`), if one does. */
  readonly variable?: string;
}

/** A declared key that a standard variable sets. */
export interface DeclaredVariable extends DeclaredKey {
  /** The standard variable that sets it: `REDIS_HOST`. */
  readonly variable: string;
}

function isKey(node: unknown): node is KitConfigurationKey {
  const entry = node as Partial<KitConfigurationKey> | null;
  return typeof entry === "object" && entry !== null &&
    typeof entry.type === "string" && typeof entry.description === "string";
}

function isSection(node: unknown): node is KitConfigurationSection {
  return typeof node === "object" && node !== null && !isKey(node);
}

/**
 * The declaration of `key`.
 *
 * @throws {Error} When the configuration module declares no such key (a
 * doctor out of step with the module; its tests catch it).
 */
export function declaredKey(key: string): DeclaredKey {
  let node: unknown = kitConfigurationSections;
  for (const segment of key.split(":")) {
    node = isSection(node) && Object.hasOwn(node, segment)
      ? node[segment]
      : undefined;
  }
  if (!isKey(node)) {
    throw new Error(
      `kit doctor: ${key} is not a key of kitConfigurationSections; check the key against the configuration module's declarations`,
    );
  }
  const variable = Object.keys(standardVariables).find((name) =>
    standardVariables[name] === key
  );
  return {
    key,
    declaration: node,
    ...(variable === undefined ? {} : { variable }),
  };
}

/**
 * The declaration of `key`, which a standard variable sets.
 *
 * @throws {Error} When the key is not declared, or no standard variable
 * sets it.
 */
export function declaredVariable(key: string): DeclaredVariable {
  const declared = declaredKey(key);
  if (declared.variable === undefined) {
    throw new Error(
      `kit doctor: no standard variable sets ${key}; check standardVariables of the configuration module`,
    );
  }
  return { ...declared, variable: declared.variable };
}

/** `REDIS_HOST (cache:redis:host)`: a key named by its variable first. */
export function variableAndKey(declared: DeclaredVariable): string {
  return `${declared.variable} (${declared.key})`;
}

/** The keys of Redis (`cache:redis:*`), as the cache reads them. */
export const REDIS = {
  host: declaredVariable("cache:redis:host"),
  port: declaredVariable("cache:redis:port"),
  password: declaredVariable("cache:redis:password"),
  database: declaredKey("cache:redis:database"),
  clusterNodes: declaredVariable("cache:redis:cluster:nodes"),
  sentinelNodes: declaredVariable("cache:redis:sentinel:nodes"),
  sentinelName: declaredVariable("cache:redis:sentinel:name"),
  sentinelPassword: declaredVariable("cache:redis:sentinel:password"),
} as const;

/** The keys of the other services the `--connect` checks reach. */
export const SERVICES = {
  apiBaseUrl: declaredVariable("api:baseUrl"),
  resourceUrl: declaredKey("localization:resourceUrl"),
  defaultCulture: declaredKey("localization:defaultCulture"),
  logProviders: declaredKey("logging:providers"),
  remoteEndpoint: declaredVariable("logging:remoteEndpoint"),
  logApiKey: declaredVariable("logging:apiKey"),
  analyticsEndpoint: declaredKey("analytics:endpoint"),
  analyticsApiKey: declaredVariable("analytics:apiKey"),
} as const;

/** The keys the start-up rules (`validateConfiguration`) check. */
export const STARTUP = {
  connectionString: declaredKey("database:connectionString"),
  apiBaseUrl: declaredKey("api:baseUrl"),
  apiTimeout: declaredKey("api:timeout"),
  logLevel: declaredKey("logging:level"),
} as const;
