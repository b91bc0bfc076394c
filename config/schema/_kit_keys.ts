// The keys Kit's own modules read, derived from their declarations
// (kit_configuration_keys.ts). diagnose() counts them as known whatever
// schema the application uses, so that a variable one underscore short of
// one (`APP_SERVER_PORT`) is reported with the right name
// (`APP_SERVER__PORT`) instead of as a variable nothing reads.
import { kitConfigurationSections } from "./kit_configuration_keys.ts";
import { declaredKeys } from "./_kit_sections.ts";

/** Every key declared by Kit's modules, as colon paths. */
export const KIT_OPTIONAL_KEYS: readonly string[] = Object.freeze(
  declaredKeys(kitConfigurationSections).map(([key]) => key),
);
