// Configuration checks (the "Configuration value not found" and
// "environment variables ignored" failures): the base and environment files
// exist and parse, which variable chose the environment, both validators'
// failures with the source of each bad value, and every diagnose() finding.
// It loads the configuration exactly as an application does, through the
// module's public API.
import { isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import {
  appConfigSchema,
  type ConfigurationDiagnostic,
  type ConfigurationManager,
  ConfigurationSourceError,
  ConfigurationValidationError,
  createConfiguration,
  validateConfiguration,
} from "../../config/mod.ts";
import { STARTUP } from "./declared.ts";
import { exists } from "./files.ts";
import {
  keyToVariable,
  normalizePrefix,
  stripPrefix,
  variableToKey,
} from "../../internal/settings/env_naming.ts";
import type { Check } from "./report.ts";

const GROUP = "Configuration" as const;

/** What the configuration checks need from the command line. */
export interface ConfigurationOptions {
  /** The environment name, when given (`--environment`). */
  readonly environment?: string;
  /** The prefix of the application's variables (`--prefix`, default `APP`). */
  readonly prefix?: string;
}

/** The checks, and the loaded configuration for the service checks. */
export interface ConfigurationOutcome {
  readonly checks: Check[];
  /** The configuration, loaded without validation; close it when done. */
  readonly config?: ConfigurationManager;
}

// The folder the application reads its files from.
function basePathOf(folder: string): { path: string; note: string } {
  const configured = process.env.KIT_CONFIG_PATH;
  if (configured === undefined || configured.trim() === "") {
    return { path: folder, note: "" };
  }
  const path = isAbsolute(configured)
    ? configured
    : resolve(folder, configured);
  return { path, note: ` (KIT_CONFIG_PATH=${configured})` };
}

/** Loads the folder's configuration and checks it. */
export async function checkConfiguration(
  folder: string,
  options: ConfigurationOptions,
): Promise<ConfigurationOutcome> {
  const checks: Check[] = [];
  const base = basePathOf(folder);
  const baseFile = join(base.path, "appsettings.json");
  if (!await exists(baseFile)) {
    checks.push({
      group: GROUP,
      name: "base file",
      status: "fail",
      message:
        `${baseFile} does not exist${base.note}: every getValue() of a key without a default throws "Configuration value not found: <key>"`,
      advice: base.note === ""
        ? "create appsettings.json in the application root (paths are relative to it, not to the source file), or run the doctor on the folder the application starts in"
        : "point KIT_CONFIG_PATH at the folder that holds appsettings.json, or unset it",
    });
    return { checks };
  }
  checks.push({
    group: GROUP,
    name: "base file",
    status: "pass",
    message: `${baseFile}${base.note}`,
  });
  const common = {
    basePath: base.path,
    environment: options.environment,
    envPrefix: options.prefix,
  };
  let config: ConfigurationManager;
  try {
    config = await createConfiguration({ ...common, validate: false });
  } catch (error) {
    checks.push(sourceFailure(error));
    return { checks };
  }
  checks.push(environmentCheck(config, base.path));
  checks.push(await startupRules(config));
  checks.push(await schemaRules(common));
  const findings = config.diagnose();
  const prefixes = prefixMistakes(config, options.prefix ?? "APP");
  checks.push(...diagnosis(findings, config.environment), ...prefixes);
  const naming = findings.filter((finding) =>
    finding.code !== "missing-optional-file" &&
    finding.code !== "missing-environment-file"
  );
  if (naming.length === 0 && prefixes.length === 0) {
    checks.push({
      group: GROUP,
      name: "environment variables",
      status: "pass",
      message:
        "no prefix, underscore or unknown-key mistakes among the variables",
    });
  }
  return { checks, config };
}

function sourceFailure(error: unknown): Check {
  if (error instanceof ConfigurationSourceError) {
    const at = error.line === undefined
      ? ""
      : `:${error.line}:${error.column ?? 1}`;
    return {
      group: GROUP,
      name: "files parse",
      status: "fail",
      message: `${error.path ?? error.source}${at}: ${error.message}`,
      advice:
        "fix the file at that line and column (a missing comma or quote, an unclosed brace), then run the doctor again",
    };
  }
  return {
    group: GROUP,
    name: "files parse",
    status: "fail",
    message: `the configuration does not load: ${
      error instanceof Error ? error.message : String(error)
    }`,
    advice: "fix what the message names, then run the doctor again",
  };
}

function environmentCheck(
  config: ConfigurationManager,
  basePath: string,
): Check {
  const environment = config.environment ?? "development";
  const source = config.environmentSource ?? "the default";
  const chosen = /^[A-Z_]+$/.test(source)
    ? `${source}=${process.env[source] ?? environment}`
    : source;
  return {
    group: GROUP,
    name: "environment",
    status: "pass",
    message: `"${environment}", chosen by ${chosen}: overrides come from ${
      join(basePath, `appsettings.${environment}.json`)
    }`,
  };
}

const TIMEOUT_KEY = STARTUP.apiTimeout.key;

async function startupRules(config: ConfigurationManager): Promise<Check> {
  await Promise.resolve();
  try {
    validateConfiguration(config);
    return {
      group: GROUP,
      name: "start-up rules",
      status: "pass",
      message:
        `${STARTUP.connectionString.key}, ${STARTUP.apiBaseUrl.key} and ${STARTUP.logLevel.key} are set, the log level and ${TIMEOUT_KEY} are valid`,
    };
  } catch (error) {
    if (!(error instanceof ConfigurationValidationError)) throw error;
    const details = error.failures.map((line) => {
      if (line.startsWith("API timeout") && !line.includes("from ")) {
        const source = config.getSource(TIMEOUT_KEY);
        return source === undefined ? line : `${line} (from ${source})`;
      }
      return line;
    });
    return {
      group: GROUP,
      name: "start-up rules",
      status: "fail",
      message:
        "createConfiguration() without a schema throws Configuration validation failed:",
      details,
      advice:
        `set each missing key in appsettings.json or its environment variable (APP_${
          keyToVariable(STARTUP.connectionString.key.split(":"))
        }…), and fix each bad value where the line says it comes from`,
    };
  }
}

async function schemaRules(
  common: { basePath: string; environment?: string; envPrefix?: string },
): Promise<Check> {
  let config: ConfigurationManager | undefined;
  try {
    config = await createConfiguration({ ...common, schema: appConfigSchema });
    return {
      group: GROUP,
      name: "schema (appConfigSchema)",
      status: "pass",
      message: "every value is within the schema's types and bounds",
    };
  } catch (error) {
    if (!(error instanceof ConfigurationValidationError)) throw error;
    return {
      group: GROUP,
      name: "schema (appConfigSchema)",
      status: "fail",
      message:
        "createConfiguration({ schema: appConfigSchema }) throws Configuration validation failed:",
      details: error.failures,
      advice:
        "fix each value where the line says it comes from (a file, or env <NAME>); ignore this check if the application uses a schema of its own",
    };
  } finally {
    await config?.close();
  }
}

function diagnosis(
  findings: readonly ConfigurationDiagnostic[],
  environment: string | undefined,
): Check[] {
  const checks: Check[] = [];
  for (const finding of findings) {
    const name = finding.variable ?? finding.key ?? finding.code;
    switch (finding.code) {
      case "missing-optional-file":
        checks.push({
          group: GROUP,
          name: "optional file",
          status: "skip",
          message: finding.message,
        });
        break;
      case "missing-environment-file":
        checks.push({
          group: GROUP,
          name: "environment file",
          status: "warn",
          message: finding.message,
          advice: `create appsettings.${
            environment ?? "<environment>"
          }.json if this environment needs its own values, or set RUNTIME_ENV to the environment whose file exists`,
        });
        break;
      case "single-underscore":
        checks.push({
          group: GROUP,
          name,
          status: "fail",
          message: finding.message,
          advice:
            `rename ${finding.variable} to ${finding.suggestion}: <PREFIX>_<SECTION>__<PROPERTY>, one underscore after the prefix, two between levels`,
        });
        break;
      case "unknown-variable":
        checks.push({
          group: GROUP,
          name,
          status: "fail",
          message: finding.message,
          advice:
            "check the spelling against the keys of appsettings.json (APP_API__BASE_URL maps to api:baseUrl), or remove the variable",
        });
        break;
      case "no-environment-source":
        checks.push({
          group: GROUP,
          name: "environment source",
          status: "fail",
          message: finding.message,
          advice:
            "add the environment source: config.addEnvironmentVariables(<prefix>) (createConfiguration() adds it)",
        });
        break;
      default:
        checks.push({
          group: GROUP,
          name,
          status: "fail",
          message: finding.message,
          advice: "do what the finding says, then run the doctor again",
        });
    }
  }
  return checks;
}

// Variables shaped like configuration for this application's sections but
// under another prefix (SHOP_DATABASE__TIMEOUT) or none (DATABASE__TIMEOUT):
// diagnose() sees only the variables that carry the prefix.
function prefixMistakes(
  config: ConfigurationManager,
  prefixOption: string,
): Check[] {
  const prefix = normalizePrefix(prefixOption);
  const checks: Check[] = [];
  for (const name of Object.keys(process.env).sort()) {
    if (!name.includes("__") || stripPrefix(name, prefix) !== undefined) {
      continue;
    }
    const underscore = name.indexOf("_");
    const candidates: [string | undefined, string][] = [
      [undefined, name],
      [name.slice(0, underscore), name.slice(underscore + 1)],
    ];
    for (const [other, rest] of candidates) {
      if (rest === "" || rest.startsWith("_")) continue;
      const key = variableToKey(rest);
      const section = key?.split(":")[0];
      if (key === undefined || section === undefined) continue;
      if (!key.includes(":") || !config.hasValue(section)) continue;
      const meant = `${prefix}${rest}`;
      checks.push({
        group: GROUP,
        name,
        status: "warn",
        message: `${name} looks like ${key} ${
          other === undefined ? "without a prefix" : `with the prefix ${other}`
        }, but the application reads ${prefix}… variables, so it is ignored`,
        advice: other === undefined
          ? `rename it to ${meant}`
          : `rename it to ${meant}, or run the doctor with --prefix ${other} if the application passes envPrefix: "${other}"`,
      });
      break;
    }
  }
  return checks;
}
