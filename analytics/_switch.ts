// Internal: features:enableAnalytics, as the providers' fromConfiguration
// read it. With the switch off, a provider built from configuration is
// created turned off (its constructor given the TURNED_OFF mark instead of
// options): no queue, no timer, nothing sent, no key of its own read. The
// running application's log says so once per configuration, and the
// manager skips its work when every provider it has is turned off.
import type { IConfiguration } from "../config/mod.ts";
import { type HealthCheckResult, hostLogger } from "../platform/mod.ts";
import {
  readFeatureSwitch,
  sayOnce,
  switchedOffBy,
} from "../internal/settings/feature_switch.ts";
import { findSetting } from "../internal/settings/setting.ts";
import { AnalyticsConfigurationError } from "./analytics_errors.ts";

/** The key of the switch. */
export const ANALYTICS_SWITCH = "features:enableAnalytics";

/** Marks the options of a provider to create turned off. */
const TURNED_OFF: unique symbol = Symbol("kit.analytics.turnedOff");

/** Why a provider is off: the switch's source, when known. */
export interface TurnedOff {
  readonly source: string | undefined;
}

/**
 * Whether the configuration turns analytics off, and where.
 *
 * @throws {AnalyticsConfigurationError} For a value that is no switch,
 * naming the key, the value and its source.
 */
export function analyticsOff(config: IConfiguration): TurnedOff | undefined {
  const found = readFeatureSwitch(config, ANALYTICS_SWITCH);
  if (found.problem !== undefined) {
    throw new AnalyticsConfigurationError(
      found.problem,
      ANALYTICS_SWITCH,
      findSetting(config, [ANALYTICS_SWITCH])?.source,
    );
  }
  return found.on ? undefined : { source: found.source };
}

/** The options that make a provider's constructor create it turned off. */
export function turnedOffOptions<T>(off: TurnedOff): T {
  return { [TURNED_OFF]: off } as T;
}

/** The mark `turnedOffOptions` put in a provider's options, if any. */
export function turnedOffIn(options: unknown): TurnedOff | undefined {
  return typeof options === "object" && options !== null
    ? (options as { [TURNED_OFF]?: TurnedOff })[TURNED_OFF]
    : undefined;
}

/** The words that say why: `features:enableAnalytics=false (from …)`. */
export function offReason(off: TurnedOff): string {
  return switchedOffBy(ANALYTICS_SWITCH, off.source);
}

/** What a turned-off provider's checkHealth answers: healthy, disabled. */
export function offHealth(off: TurnedOff): HealthCheckResult {
  return {
    status: "healthy",
    detail: { disabled: true, reason: `${offReason(off)}: sends no event` },
  };
}

/**
 * What a manager whose providers are all turned off answers: healthy,
 * disabled, with each provider's own answer.
 */
export function allOffHealth(health: HealthCheckResult): HealthCheckResult {
  return {
    status: "healthy",
    detail: {
      disabled: true,
      reason:
        `every provider is turned off (${ANALYTICS_SWITCH}=false): no event is sent`,
      ...(health.detail as object | undefined),
    },
  };
}

/**
 * Writes, once per configuration, an info line under `kit.analytics`:
 * nothing is sent. Outside a running application with a logging step,
 * nothing is written (and the next provider built tries again).
 */
export function announceAnalyticsOff(
  config: IConfiguration,
  off: TurnedOff,
): void {
  sayOnce(config, "analytics off", () => {
    const logger = hostLogger("kit.analytics");
    if (logger === undefined) return false;
    logger.info(
      `${
        offReason(off)
      }: analytics send no event (the providers built from configuration are off)`,
    );
    return true;
  });
}
