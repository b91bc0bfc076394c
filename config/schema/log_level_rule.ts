// The log level rule is core's (core/log_level_rule.ts), shared with the
// logging module; the configuration module offers it under its own name too,
// as it always has.
export {
  invalidLogLevelMessage,
  type LogLevelText,
  normalizeLogLevel,
} from "../../core/mod.ts";
