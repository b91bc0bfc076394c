// Where a missing key could be set, worded for a failure line: the
// variables of the environment sources actually added (with their prefix)
// and the base JSON file. `Missing required configuration: <key>` is
// followed by it so the reader knows what to write, and where.
import type { ConfigurationProvider } from "../providers/configuration_provider.ts";
import { EnvironmentVariableProvider } from "../providers/environment_variable_provider.ts";
import {
  StandardVariableProvider,
  standardVariables,
} from "../providers/standard_variable_provider.ts";
import { JsonFileProvider } from "../providers/json_file_provider.ts";
import { keyToVariable } from "../../internal/settings/env_naming.ts";

/**
 * `set DB_CONNECTION_STRING or APP_DATABASE__CONNECTION_STRING, or
 * "database": { "connectionString": … } in appsettings.json`, or
 * `undefined` when no source of those kinds was added.
 */
export function whereToSet(
  key: string,
  providers: readonly ConfigurationProvider[],
): string | undefined {
  const segments = key.split(":");
  // Inside an array the item's place depends on the other items; the line
  // says what replaced the array instead, when something did.
  if (
    key === "" ||
    segments.some((segment) => segment === "" || /^\d+$/.test(segment))
  ) {
    return undefined;
  }
  const variables: string[] = [];
  const add = (name: string): void => {
    if (!variables.includes(name)) variables.push(name);
  };
  let file: string | undefined;
  for (const provider of providers) {
    if (provider instanceof StandardVariableProvider) {
      for (const [name, mapped] of Object.entries(standardVariables)) {
        if (mapped === key) add(name);
      }
    } else if (provider instanceof EnvironmentVariableProvider) {
      const rest = keyToVariable(segments);
      add(provider.prefix === "" ? rest : `${provider.prefix}_${rest}`);
    } else if (provider instanceof JsonFileProvider && file === undefined) {
      file = provider.name;
    }
  }
  const parts: string[] = [];
  if (variables.length > 0) parts.push(variables.join(" or "));
  if (file !== undefined) parts.push(`${jsonFragment(segments)} in ${file}`);
  return parts.length === 0 ? undefined : `set ${parts.join(", or ")}`;
}

// `"database": { "connectionString": … }`
function jsonFragment(segments: readonly string[]): string {
  let text = "…";
  for (let i = segments.length - 1; i >= 0; i--) {
    text = `${JSON.stringify(segments[i])}: ${
      i === segments.length - 1 ? text : `{ ${text} }`
    }`;
  }
  return text;
}
