// The layered model behind ConfigurationManager: every source becomes a tree
// of nodes (a layer), layers merge in precedence order, and the result is
// flattened once into a lower-cased key index so lookups are one Map.get.
import { isPlainObject } from "../core/mod.ts";
import type { ConfigurationEntry } from "./providers/configuration_provider.ts";
import { ConfigurationSourceError } from "./providers/configuration_source_error.ts";
import { UnsafeConfigurationKeyError } from "./unsafe_configuration_key_error.ts";
import { MAX_DEPTH, shortenPath } from "./_limits.ts";

export type Leaf = string | number | boolean | null;

const LEAF = 0;
const OBJECT = 1;
const ARRAY = 2;

/** A node of a layer or of the merged tree. Immutable once built. */
export interface Node {
  /** The segment as the source spelled it. */
  name: string;
  /** The label of the source that supplied (or last merged into) it. */
  source: string;
  kind: typeof LEAF | typeof OBJECT | typeof ARRAY;
  value: Leaf;
  /** Children by lower-cased segment (array children by index). */
  children: Map<string, Node> | undefined;
  /** Built from colon keys: becomes an array when every child is an index. */
  flat: boolean;
}

/** One entry of the flattened index. */
export interface IndexEntry {
  /** The leaf value, or a plain subtree (cloned before it is handed out). */
  readonly value: unknown;
  readonly tree: boolean;
  readonly source: string;
  /** The key as the winning sources spell it. */
  readonly key: string;
}

/** One effective leaf (or empty container), for explain and change lists. */
export interface LeafInfo {
  readonly key: string;
  readonly value: unknown;
  readonly source: string;
}

/** The flattened form of a merged tree. */
export interface Snapshot {
  readonly tree: Record<string, unknown>;
  readonly index: Map<string, IndexEntry>;
  readonly leaves: LeafInfo[];
}

const UNSAFE_SEGMENTS = new Set(["__proto__", "prototype", "constructor"]);
const INDEX = /^(?:0|[1-9]\d{0,8})$/;

/** Tells whether a segment may never be used (prototype pollution). */
export function isUnsafeSegment(segment: string): boolean {
  return UNSAFE_SEGMENTS.has(segment.toLowerCase());
}

function newBranch(name: string, source: string, flat: boolean): Node {
  return {
    name,
    source,
    kind: OBJECT,
    value: null,
    children: new Map(),
    flat,
  };
}

function splitKey(key: string, source: string, fullKey = key): string[] {
  if (key === "") return [];
  const segments = key.split(":");
  if (segments.length > MAX_DEPTH) {
    throw new ConfigurationSourceError(
      `Invalid configuration key "${
        shortenPath(fullKey)
      }" from ${source}: it has more than ${MAX_DEPTH} segments; flatten that part of the configuration`,
      { source },
    );
  }
  for (const segment of segments) {
    if (segment === "") {
      throw new ConfigurationSourceError(
        `Invalid configuration key "${fullKey}" from ${source}: a segment is empty`,
        { source },
      );
    }
    if (isUnsafeSegment(segment)) {
      throw new UnsafeConfigurationKeyError(fullKey, source);
    }
  }
  return segments;
}

function fromValue(
  name: string,
  value: unknown,
  source: string,
  path: string,
  depth: number,
): Node {
  if (depth > MAX_DEPTH) {
    throw new ConfigurationSourceError(
      `Configuration source ${source} nests deeper than ${MAX_DEPTH} levels at "${
        shortenPath(path)
      }"; flatten that part of the configuration`,
      { source },
    );
  }
  if (Array.isArray(value)) {
    const node: Node = {
      name,
      source,
      kind: ARRAY,
      value: null,
      children: new Map(),
      flat: false,
    };
    for (let i = 0; i < value.length; i++) {
      const index = String(i);
      const childPath = path === "" ? index : `${path}:${index}`;
      node.children!.set(
        index,
        fromValue(index, value[i], source, childPath, depth + 1),
      );
    }
    return node;
  }
  if (isPlainObject(value)) {
    const node = newBranch(name, source, false);
    for (const property of Object.keys(value)) {
      const childPath = path === "" ? property : `${path}:${property}`;
      const segments = splitKey(property, source, childPath);
      if (segments.length === 0) {
        throw new ConfigurationSourceError(
          `Invalid configuration key "${childPath}" from ${source}: a property name is empty`,
          { source },
        );
      }
      insert(
        node,
        segments,
        fromValue(
          segments[segments.length - 1],
          (value as Record<string, unknown>)[property],
          source,
          childPath,
          depth + segments.length,
        ),
        source,
      );
    }
    return node;
  }
  if (
    value === null || typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  ) {
    return {
      name,
      source,
      kind: LEAF,
      value,
      children: undefined,
      flat: false,
    };
  }
  throw new ConfigurationSourceError(
    `Invalid configuration value for "${path}" from ${source}: expected JSON data, got ${typeof value}`,
    { source },
  );
}

function insert(
  parent: Node,
  segments: string[],
  node: Node,
  source: string,
): void {
  let current = parent;
  for (let i = 0; i < segments.length - 1; i++) {
    const lower = segments[i].toLowerCase();
    let child = current.children!.get(lower);
    if (child === undefined || child.kind === LEAF) {
      child = newBranch(segments[i], source, true);
      current.children!.set(lower, child);
    }
    current = child;
  }
  const last = segments[segments.length - 1].toLowerCase();
  const existing = current.children!.get(last);
  current.children!.set(
    last,
    existing === undefined ? node : mergeNodes(existing, node),
  );
}

/**
 * Builds one layer from a provider's entries.
 *
 * @throws {UnsafeConfigurationKeyError} for `__proto__`, `prototype`,
 * `constructor` segments.
 * @throws {ConfigurationSourceError} for empty segments or non-JSON values.
 */
export function buildLayer(
  entries: readonly ConfigurationEntry[],
  defaultSource: string,
): Node {
  const root = newBranch("", defaultSource, false);
  let result = root;
  for (const entry of entries) {
    const source = entry.source ?? defaultSource;
    const segments = splitKey(entry.key, source);
    if (segments.length === 0) {
      const node = fromValue("", entry.value, source, "", 0);
      if (node.kind !== OBJECT) {
        throw new ConfigurationSourceError(
          `Configuration source ${source} must supply an object at its root`,
          { source },
        );
      }
      result = mergeNodes(result, node);
      continue;
    }
    insert(
      result,
      segments,
      fromValue(
        segments[segments.length - 1],
        entry.value,
        source,
        entry.key,
        segments.length,
      ),
      source,
    );
  }
  finalizeArrays(result);
  return result;
}

// Branches built from colon keys whose children are all indexes become
// arrays, ordered by index with gaps closed up.
function finalizeArrays(node: Node): void {
  if (node.children === undefined) return;
  for (const child of node.children.values()) finalizeArrays(child);
  if (!node.flat || node.kind !== OBJECT || node.children.size === 0) return;
  const keys = [...node.children.keys()];
  if (!keys.every((key) => INDEX.test(key))) return;
  keys.sort((a, b) => Number(a) - Number(b));
  const children = new Map<string, Node>();
  keys.forEach((key, position) => {
    const child = node.children!.get(key)!;
    const index = String(position);
    children.set(index, { ...child, name: index });
  });
  node.kind = ARRAY;
  node.children = children;
}

/** An array of a lower source that a higher one replaced whole. */
export interface Replacement {
  /** The array's key, spelled as the higher source spells it. */
  readonly key: string;
  /** The higher source (the one in force). */
  readonly by: string;
  /** The lower source, whose array is gone. */
  readonly over: string;
}

/**
 * Merges `upper` over `lower`: objects merge per key (case-insensitively,
 * the upper spelling winning), anything else in `upper` replaces `lower`
 * whole — arrays included. When `replaced` is given, every array replaced by
 * an array of another source is recorded there.
 */
export function mergeNodes(
  lower: Node,
  upper: Node,
  replaced?: Replacement[],
  path = "",
): Node {
  if (upper.kind !== OBJECT || lower.kind !== OBJECT) {
    if (
      replaced !== undefined && upper.kind === ARRAY &&
      lower.kind === ARRAY && upper.source !== lower.source
    ) {
      replaced.push({
        key: path,
        by: arraySource(upper),
        over: arraySource(lower),
      });
    }
    return upper;
  }
  const children = new Map(lower.children);
  for (const [key, child] of upper.children!) {
    const existing = children.get(key);
    children.set(
      key,
      existing === undefined ? child : mergeNodes(
        existing,
        child,
        replaced,
        path === "" ? child.name : `${path}:${child.name}`,
      ),
    );
  }
  return {
    name: upper.name,
    source: upper.source,
    kind: OBJECT,
    value: null,
    children,
    flat: upper.flat && lower.flat,
  };
}

// The source that supplied an array: the array node's own label is the
// first entry that created it; a leaf inside names the variable precisely.
function arraySource(node: Node): string {
  let current: Node = node;
  while (current.children !== undefined && current.children.size > 0) {
    current = current.children.values().next().value!;
  }
  return current.source;
}

/** An empty root, the state before anything is loaded. */
export function emptyRoot(): Node {
  return newBranch("", "", false);
}

/**
 * Builds a tree from plain data (a schema's output), taking each key's
 * source from `sourceOf`.
 */
export function fromPlain(
  value: Record<string, unknown>,
  sourceOf: (key: string) => string,
): Node {
  const build = (name: string, data: unknown, key: string): Node => {
    const source = key === "" ? "" : sourceOf(key);
    if (Array.isArray(data) || isPlainObject(data)) {
      const node: Node = {
        name,
        source,
        kind: Array.isArray(data) ? ARRAY : OBJECT,
        value: null,
        children: new Map(),
        flat: false,
      };
      const keys = Object.keys(data);
      for (const childName of keys) {
        const childData = (data as Record<string, unknown>)[childName];
        if (childData === undefined) continue;
        const childKey = key === "" ? childName : `${key}:${childName}`;
        node.children!.set(
          childName.toLowerCase(),
          build(childName, childData, childKey),
        );
      }
      return node;
    }
    const leaf: Leaf = data === null || typeof data === "string" ||
        typeof data === "number" || typeof data === "boolean"
      ? data
      : String(data);
    return {
      name,
      source,
      kind: LEAF,
      value: leaf,
      children: undefined,
      flat: false,
    };
  };
  return build("", value, "");
}

/** Flattens a merged tree into plain data, the key index and the leaves. */
export function snapshot(root: Node): Snapshot {
  const index = new Map<string, IndexEntry>();
  const leaves: LeafInfo[] = [];
  const visit = (node: Node, key: string): unknown => {
    if (node.kind === LEAF) {
      const entry: IndexEntry = {
        value: node.value,
        tree: false,
        source: node.source,
        key,
      };
      add(index, key, entry);
      leaves.push({ key, value: node.value, source: node.source });
      return node.value;
    }
    let plain: unknown[] | Record<string, unknown>;
    if (node.kind === ARRAY) {
      const array: unknown[] = [];
      for (const child of node.children!.values()) {
        array.push(
          visit(child, key === "" ? child.name : `${key}:${child.name}`),
        );
      }
      plain = array;
    } else {
      const object: Record<string, unknown> = {};
      for (const child of node.children!.values()) {
        object[child.name] = visit(
          child,
          key === "" ? child.name : `${key}:${child.name}`,
        );
      }
      plain = object;
    }
    if (key !== "") {
      if (node.children!.size === 0) {
        leaves.push({
          key,
          value: node.kind === ARRAY ? [] : {},
          source: node.source,
        });
      }
      add(index, key, { value: plain, tree: true, source: node.source, key });
    }
    return plain;
  };
  const tree = visit(root, "") as Record<string, unknown>;
  return { tree, index, leaves };
}

function add(index: Map<string, IndexEntry>, key: string, entry: IndexEntry) {
  const lower = key.toLowerCase();
  index.set(lower, entry);
  if (lower !== key) index.set(key, entry);
}

/** A deep copy of plain JSON data. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      copy[key] = cloneJson((value as Record<string, unknown>)[key]);
    }
    return copy as T;
  }
  return value;
}

/** Compares two leaf values (primitives or empty containers). */
export function sameLeaf(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a === "object" && typeof b === "object" && a !== null && b !== null
  ) {
    return Array.isArray(a) === Array.isArray(b);
  }
  return false;
}

/** Reads a value from plain data by lower-cased segments. */
export function lookupPlain(
  tree: unknown,
  segments: readonly string[],
): { found: boolean; value: unknown } {
  let current = tree;
  for (const segment of segments) {
    if (current === null || typeof current !== "object") {
      return { found: false, value: undefined };
    }
    const lower = segment.toLowerCase();
    const match = Object.keys(current).find((key) =>
      key.toLowerCase() === lower
    );
    if (match === undefined) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[match];
  }
  return { found: true, value: current };
}
