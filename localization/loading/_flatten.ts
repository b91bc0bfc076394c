import { isPlainObject } from "../../core/mod.ts";
import { LocalizationResourceError } from "./localization_resource_error.ts";

// Turns nested groups ({ home: { title: "…" } }) into dotted keys
// (home.title). Iterative, so a deeply nested document cannot overflow the
// stack.
export function flattenResource(
  resource: unknown,
  culture: string,
  address?: string,
): Map<string, string> {
  if (!isPlainObject(resource)) {
    throw new LocalizationResourceError(
      culture,
      "",
      `got ${describe(resource)}`,
      address,
    );
  }
  const out = new Map<string, string>();
  const pending: Array<[prefix: string, group: Record<string, unknown>]> = [[
    "",
    resource,
  ]];
  while (pending.length > 0) {
    const [prefix, group] = pending.pop()!;
    for (const name of Object.keys(group)) {
      const key = prefix === "" ? name : `${prefix}.${name}`;
      const value = group[name];
      if (typeof value === "string") {
        if (out.has(key)) {
          throw new LocalizationResourceError(
            culture,
            key,
            "is defined twice",
            address,
          );
        }
        out.set(key, value);
      } else if (isPlainObject(value)) {
        pending.push([key, value]);
      } else {
        throw new LocalizationResourceError(
          culture,
          key,
          `must be a string or a group of strings, got ${describe(value)}`,
          address,
        );
      }
    }
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
