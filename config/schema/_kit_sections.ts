// Kit's optional sections as valibot schemas, built from their plain
// declarations (kit_configuration_keys.ts), and the list of every declared
// key. Only the builders call valibot, and only when appConfigSchema is
// first used, so importing this file loads nothing.
import type * as v from "valibot";
import type {
  KitConfigurationKey,
  KitConfigurationSection,
} from "./kit_configuration_keys.ts";
import type { loadValibot } from "#config/schema/valibot";
import { readCultureList } from "../../internal/culture_names.ts";

type Valibot = ReturnType<typeof loadValibot>;

/** Tells a key's declaration from a section of them. */
export function isKeyDeclaration(
  node: KitConfigurationKey | KitConfigurationSection,
): node is KitConfigurationKey {
  return typeof node.type === "string" &&
    typeof (node as { description?: unknown }).description === "string";
}

/** Every declared key, as `[colon path, declaration]`, in declaration order. */
export function declaredKeys(
  section: object,
  prefix = "",
): [string, KitConfigurationKey][] {
  const keys: [string, KitConfigurationKey][] = [];
  const entries = Object.entries(section as KitConfigurationSection);
  for (const [name, node] of entries) {
    const path = prefix === "" ? name : `${prefix}:${name}`;
    if (isKeyDeclaration(node)) keys.push([path, node]);
    else keys.push(...declaredKeys(node, path));
  }
  return keys;
}

/** What a declared key holds once validated. */
export type KitValue<D> = D extends { type: "boolean" } ? boolean
  : D extends { type: "number" | "integer" } ? number
  : D extends { type: "cultures" } ? string[]
  : string;

/** The valibot schema of an optional declared key. */
export type KitKeySchema<D> = v.OptionalSchema<
  v.GenericSchema<KitValue<D>>,
  undefined
>;

/** The valibot schema of an optional declared section. */
export type KitSectionSchema<S> = v.OptionalSchema<
  v.ObjectSchema<KitSectionEntries<S>, undefined>,
  undefined
>;

/**
 * The entries of an optional declared section. Kit's sections nest two
 * levels at most (`cache:redis`, `cache:redis:sentinel`), which keeps the
 * type shallow enough for the compiler.
 */
export type KitSectionEntries<S> = {
  readonly [K in keyof S]: S[K] extends { type: string; description: string }
    ? KitKeySchema<S[K]>
    : v.OptionalSchema<
      v.ObjectSchema<
        { readonly [L in keyof S[K]]: KitInnerSchema<S[K][L]> },
        undefined
      >,
      undefined
    >;
};

/** A key, or a section of keys only, inside a subsection. */
type KitInnerSchema<D> = D extends { type: string; description: string }
  ? KitKeySchema<D>
  : v.OptionalSchema<
    v.ObjectSchema<{ readonly [M in keyof D]: KitKeySchema<D[M]> }, undefined>,
    undefined
  >;

/** What an optional declared section holds once validated. */
export type KitSectionOutput<S> = {
  [K in keyof S]?:
    | (S[K] extends { type: string; description: string } ? KitValue<S[K]>
      : KitSectionOutput<S[K]>)
    | undefined;
};

/**
 * The schema of one optional key: its type with its bounds; no default,
 * since the module that reads the key applies its own when it is unset
 * (so a variable it falls back to, such as `PORT`, still counts).
 */
export function keySchema(
  v: Valibot,
  declaration: KitConfigurationKey,
): v.GenericSchema {
  // deno-lint-ignore no-explicit-any
  const checks: v.PipeItem<any, any, v.BaseIssue<unknown>>[] = [];
  const { min, max } = declaration;
  let base: v.GenericSchema;
  switch (declaration.type) {
    case "boolean":
      base = v.boolean();
      break;
    case "number":
    case "integer":
      base = v.number();
      if (declaration.type === "integer") checks.push(v.integer());
      if (min !== undefined) checks.push(v.minValue(min));
      if (max !== undefined) checks.push(v.maxValue(max));
      break;
    case "url":
      base = v.string();
      checks.push(v.url());
      break;
    case "string":
      base = v.string();
      if (declaration.nonEmpty === true) checks.push(v.trim(), v.minLength(1));
      break;
    case "cultures":
      return v.optional(culturesSchema(v));
    default:
      throw new TypeError(
        `A declared key of type ${declaration.type} has no generic schema`,
      );
  }
  const pipe = v.pipe as unknown as (...items: unknown[]) => v.GenericSchema;
  return v.optional(checks.length === 0 ? base : pipe(base, ...checks));
}

/** The entries of a section whose keys are all optional. */
export function sectionEntries(
  v: Valibot,
  section: KitConfigurationSection,
): v.ObjectEntries {
  const entries: v.ObjectEntries = {};
  for (const [name, node] of Object.entries(section)) {
    entries[name] = isKeyDeclaration(node)
      ? keySchema(v, node)
      : sectionSchema(v, node);
  }
  return entries;
}

/** An optional section of optional keys. */
export function sectionSchema(
  v: Valibot,
  section: KitConfigurationSection,
): v.GenericSchema {
  return v.optional(v.object(sectionEntries(v, section)));
}

/**
 * A list of culture names, read by the localization module's own rule
 * (internal/culture_names.ts): an array, or one string of names separated
 * by commas (or JSON), as an environment variable holds it. A bad entry
 * fails at its position (`localization:supportedCultures:1`), so the line
 * names the variable or file that set it and the entry itself. A blank
 * value gives an empty list, which the readers take as not set.
 */
function culturesSchema(v: Valibot): v.GenericSchema {
  return v.pipe(
    v.unknown(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const list = readCultureList(dataset.value);
      // Blank: an empty list, which every reader takes as none (undefined
      // would leave the blank text in place of the value).
      if (list === undefined) return [];
      if (list.bad === undefined) return list.cultures;
      const { index } = list.bad;
      addIssue({
        message: list.bad.problem,
        input: list.bad.entry,
        // At the entry's position, unless the value is no list at all.
        path: index !== undefined
          ? [{
            type: "array",
            origin: "value",
            input: [],
            key: index,
            value: list.bad.entry,
          }]
          : undefined,
      });
      return NEVER;
    }),
  ) as unknown as v.GenericSchema;
}
