// The line that says internationalization is off: what is built from a
// configuration whose features:enableInternationalization is false serves
// one culture, and the running application's log says so once per
// configuration (not once per manager or culture provider built from it).
import type { IConfiguration } from "../../config/mod.ts";
import { hostLogger } from "../../platform/mod.ts";
import {
  sayOnce,
  switchedOffBy,
} from "../../internal/settings/feature_switch.ts";

/**
 * Writes, once per configuration, an info line under `kit.localization`
 * naming the switch and its source and the culture served. Outside a
 * running application with a logging step nothing is written (and the next
 * one built from the configuration tries again).
 *
 * @param config The configuration the switch was read from.
 * @param culture The one culture served.
 * @param source Where the switch was set, when known.
 */
export function announceSingleCulture(
  config: IConfiguration,
  culture: string,
  source: string | undefined,
): void {
  sayOnce(config, "single culture", () => {
    const logger = hostLogger("kit.localization");
    if (logger === undefined) return false;
    logger.info(
      `${
        switchedOffBy("features:enableInternationalization", source)
      }: localization serves ${culture} only and loads no other culture`,
      { culture },
    );
    return true;
  });
}
