// The culture chain is shared with the kit-i18n command (cli/i18n/), so it
// lives in internal/; this name stays for the module's own files.
export { cultureChain } from "../internal/culture_chain.ts";
