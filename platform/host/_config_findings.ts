// The configuration findings the host logs once logging is set up: variables
// whose name is one underscore short of a key the configuration knows
// (`APP_CACHE__REDIS_PORT` for `APP_CACHE__REDIS__PORT`). Such a variable is
// otherwise ignored without a word. The platform module does not import the
// config module, so the configuration is duck-typed: any object with a
// `diagnose()` method returning findings `{ code, message, variable?,
// suggestion?, key? }`; only those of code `single-underscore` are logged.
import type { ApplicationLogger } from "./application_logger.ts";

/** The code of a near-miss finding. */
const NEAR_MISS = "single-underscore";

// At most this many warnings, so a polluted environment cannot flood the log.
const MAX_WARNINGS = 50;

interface Finding {
  code: string;
  message: string;
  variable?: unknown;
  suggestion?: unknown;
  key?: unknown;
}

function isNearMiss(value: unknown): value is Finding {
  if (value === null || typeof value !== "object") return false;
  const finding = value as Record<string, unknown>;
  return finding.code === NEAR_MISS && typeof finding.message === "string";
}

/**
 * Logs each near-miss finding of `config.diagnose()` as a warning, with
 * `code`, `variable`, `suggestion` and `key` as properties. A configuration
 * without `diagnose()`, or whose `diagnose()` throws, logs nothing but a
 * debug line: a courtesy must not stop the start-up.
 */
export function logConfigurationFindings(
  config: unknown,
  logger: ApplicationLogger,
): void {
  if (config === null || typeof config !== "object") return;
  const diagnose = (config as { diagnose?: unknown }).diagnose;
  if (typeof diagnose !== "function") return;
  let findings: unknown;
  try {
    findings = diagnose.call(config);
  } catch (error) {
    logger.debug(
      `The configuration's diagnose() failed: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
    return;
  }
  if (!Array.isArray(findings)) return;
  let written = 0;
  for (const finding of findings) {
    if (!isNearMiss(finding)) continue;
    if (written++ === MAX_WARNINGS) {
      logger.warning(
        `More near-miss configuration variables than ${MAX_WARNINGS}; config.diagnose() lists them all`,
      );
      break;
    }
    const properties: Record<string, unknown> = { code: finding.code };
    for (const name of ["variable", "suggestion", "key"] as const) {
      if (typeof finding[name] === "string") properties[name] = finding[name];
    }
    logger.warning(finding.message, properties);
  }
}
