import { assertCultureName } from "../cultures/culture_name.ts";

export const CULTURE_PLACEHOLDER = "{culture}";

export function checkTemplate(template: string, owner: string): string {
  if (typeof template !== "string" || !template.includes(CULTURE_PLACEHOLDER)) {
    throw new TypeError(
      `${owner}: the template must contain ${CULTURE_PLACEHOLDER}, got ${
        JSON.stringify(template)
      }`,
    );
  }
  return template;
}

// The culture is checked first, so only letters, digits and "-" ever reach
// the URL or path.
export function fillTemplate(template: string, culture: string): string {
  return template.replaceAll(CULTURE_PLACEHOLDER, assertCultureName(culture));
}
