// Reading the configuration values the service checks need.
import type { ConfigurationManager } from "../../config/mod.ts";

/** A configuration value as trimmed text; `undefined` when empty or unset. */
export function text(
  config: ConfigurationManager,
  key: string,
): string | undefined {
  const value = config.getValue<unknown>(key, undefined);
  if (value === undefined || value === null) return undefined;
  const result = String(value).trim();
  return result === "" ? undefined : result;
}

/** A key with the source of its value: `api:baseUrl from env API_BASE_URL`. */
export function from(config: ConfigurationManager, key: string): string {
  const source = config.getSource(key);
  return source === undefined ? key : `${key} from ${source}`;
}
