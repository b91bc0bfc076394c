import { flattenResource } from "./_flatten.ts";

/**
 * Turns a resource document into its texts by dotted key, as the
 * localization providers read it: nested groups (`{ "home": { "title":
 * "…" } }`) become `home.title`. Tools that check resource files use it, so
 * they read a file exactly as an application does.
 *
 * @param resource The parsed JSON document of one culture.
 * @param culture The culture of the document, named in an error.
 * @param address Where the document came from (a path or URL), named in an
 * error.
 * @returns Each text by its dotted key.
 * @throws {LocalizationResourceError} When the document is not an object, a
 * value is neither a text nor a group of texts, or a key is defined twice
 * (`{ "a.b": "…", "a": { "b": "…" } }`).
 *
 * @example
 * ```ts
 * import { flattenLocalizationResource } from "@vendor/kit/localization";
 *
 * const texts = flattenLocalizationResource(
 *   { home: { title: "Welcome" }, ok: "OK" },
 *   "en",
 * );
 * console.log(texts.get("home.title")); // "Welcome"
 * ```
 */
export function flattenLocalizationResource(
  resource: unknown,
  culture: string,
  address?: string,
): Map<string, string> {
  return flattenResource(resource, culture, address);
}
