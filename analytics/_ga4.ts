// Internal: mapping of normalized events onto GA4 Measurement Protocol
// events (names, params, ecommerce items, user properties) and the
// anonymizeIp filter. Limits follow Google's Measurement Protocol reference:
// 25 events per request, 25 params per event, names of at most 40 characters
// (user properties 24), values of at most 100 characters (user properties
// 36), 200 items per event.
import { toSnakeCase } from "../core/mod.ts";
import type { AnalyticsEvent, AnalyticsProperties } from "./analytics_event.ts";

export const GA4_MAX_EVENTS_PER_REQUEST = 25;
const MAX_PARAMS = 25;
const MAX_NAME = 40;
const MAX_VALUE = 100;
const MAX_USER_PROPERTY_NAME = 24;
const MAX_USER_PROPERTY_VALUE = 36;
const MAX_USER_PROPERTIES = 25;
const MAX_ITEMS = 200;

export type Ga4ParamValue = string | number;
export type Ga4Item = Record<string, Ga4ParamValue>;
export type Ga4Params = Record<string, Ga4ParamValue | Ga4Item[]>;

export interface Ga4Event {
  name: string;
  params: Ga4Params;
  timestamp_micros: number;
}

export type Ga4UserProperties = Record<string, { value: Ga4ParamValue }>;

const RESERVED_EVENT_NAMES = new Set([
  "ad_activeview",
  "ad_click",
  "ad_exposure",
  "ad_query",
  "ad_reward",
  "adunit_exposure",
  "app_background",
  "app_clear_data",
  "app_exception",
  "app_install",
  "app_remove",
  "app_store_refund",
  "app_store_subscription_cancel",
  "app_store_subscription_convert",
  "app_store_subscription_renew",
  "app_update",
  "app_upgrade",
  "dynamic_link_app_open",
  "dynamic_link_app_update",
  "dynamic_link_first_open",
  "error",
  "firebase_campaign",
  "firebase_in_app_message_action",
  "firebase_in_app_message_dismiss",
  "firebase_in_app_message_impression",
  "first_open",
  "first_visit",
  "in_app_purchase",
  "notification_dismiss",
  "notification_foreground",
  "notification_open",
  "notification_receive",
  "os_update",
  "session_start",
  "session_start_with_rollout",
  "user_engagement",
]);
const RESERVED_USER_PROPERTIES = new Set([
  "first_open_time",
  "first_visit_time",
  "last_deep_link_referrer",
  "user_id",
  "first_open_after_install",
]);
const RESERVED_PREFIXES = ["firebase_", "ga_", "google_", "gtag_"];

/** GA4 ecommerce events, by their GA4 name. */
const ECOMMERCE_EVENTS = new Set([
  "add_payment_info",
  "add_shipping_info",
  "add_to_cart",
  "add_to_wishlist",
  "begin_checkout",
  "purchase",
  "refund",
  "remove_from_cart",
  "select_item",
  "select_promotion",
  "view_cart",
  "view_item",
  "view_item_list",
  "view_promotion",
]);

/** Segment e-commerce spec names that mean the same thing (snake-cased). */
const ECOMMERCE_ALIASES: Record<string, string> = {
  product_added: "add_to_cart",
  product_removed: "remove_from_cart",
  product_viewed: "view_item",
  product_clicked: "select_item",
  product_list_viewed: "view_item_list",
  product_added_to_wishlist: "add_to_wishlist",
  cart_viewed: "view_cart",
  checkout_started: "begin_checkout",
  payment_info_entered: "add_payment_info",
  order_completed: "purchase",
  order_refunded: "refund",
  promotion_viewed: "view_promotion",
  promotion_clicked: "select_promotion",
};

/** Event-level ecommerce params: GA4 name ← accepted property names. */
const ECOMMERCE_PARAMS: [string, string[]][] = [
  ["currency", ["currency"]],
  ["value", ["value", "revenue", "total"]],
  ["transaction_id", [
    "transactionId",
    "transaction_id",
    "orderId",
    "order_id",
  ]],
  ["affiliation", ["affiliation"]],
  ["coupon", ["coupon"]],
  ["tax", ["tax"]],
  ["shipping", ["shipping"]],
  ["shipping_tier", ["shippingTier", "shipping_tier", "shippingMethod"]],
  ["payment_type", ["paymentType", "payment_type", "paymentMethod"]],
  ["item_list_id", ["itemListId", "item_list_id", "listId", "list_id"]],
  ["item_list_name", ["itemListName", "item_list_name", "listName"]],
  ["promotion_id", ["promotionId", "promotion_id"]],
  ["promotion_name", ["promotionName", "promotion_name"]],
  ["creative_name", ["creativeName", "creative_name", "creative"]],
  ["creative_slot", ["creativeSlot", "creative_slot", "position"]],
];

/** Item fields: GA4 name ← accepted property names. */
const ITEM_FIELDS: [string, string[]][] = [
  ["item_id", ["item_id", "itemId", "id", "productId", "product_id", "sku"]],
  ["item_name", ["item_name", "itemName", "name"]],
  ["affiliation", ["affiliation"]],
  ["coupon", ["coupon"]],
  ["discount", ["discount"]],
  ["index", ["index", "position"]],
  ["item_brand", ["item_brand", "itemBrand", "brand"]],
  ["item_category", ["item_category", "itemCategory", "category"]],
  ["item_category2", ["item_category2", "itemCategory2", "category2"]],
  ["item_category3", ["item_category3", "itemCategory3", "category3"]],
  ["item_category4", ["item_category4", "itemCategory4", "category4"]],
  ["item_category5", ["item_category5", "itemCategory5", "category5"]],
  ["item_list_id", ["item_list_id", "itemListId", "listId"]],
  ["item_list_name", ["item_list_name", "itemListName", "listName"]],
  ["item_variant", ["item_variant", "itemVariant", "variant"]],
  ["location_id", ["location_id", "locationId"]],
  ["price", ["price"]],
  ["quantity", ["quantity"]],
];
const ITEM_FIELD_SOURCES = new Set(ITEM_FIELDS.flatMap(([, from]) => from));
const NUMERIC_FIELDS = new Set([
  "value",
  "tax",
  "shipping",
  "price",
  "quantity",
  "discount",
  "index",
]);

/** Events about one product, which may carry it flat in the properties. */
const SINGLE_ITEM_EVENTS = new Set([
  "add_to_cart",
  "remove_from_cart",
  "add_to_wishlist",
  "view_item",
  "select_item",
]);

const PAGE_PROPERTIES = new Set(["url", "title", "referrer", "path", "search"]);

// anonymizeIp: property names (lower-cased, separators removed) that carry an
// IP address or a user agent.
const IDENTIFYING_KEYS = new Set([
  "ip",
  "ipaddress",
  "ipoverride",
  "clientip",
  "clientipaddress",
  "remoteip",
  "remoteaddr",
  "remoteaddress",
  "xforwardedfor",
  "forwardedfor",
  "xrealip",
  "realip",
  "useragent",
  "ua",
  "httpuseragent",
  "uip",
]);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}(:\d+)?$/;
const IPV6 = /^\[?[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}(%\w+)?\]?(:\d+)?$/i;

export function isIdentifyingKey(key: string): boolean {
  return IDENTIFYING_KEYS.has(key.toLowerCase().replace(/[^a-z0-9]/g, ""));
}

export function isIpLike(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const text = value.trim();
  if (IPV4.test(text)) return true;
  // "::1", "2001:db8::1"; at least two colons and only hex digits otherwise.
  return text.includes(":") && IPV6.test(text);
}

export interface Ga4MappingOptions {
  enhancedEcommerce: boolean;
  anonymizeIp: boolean;
}

/** Maps a `track` or `page` event. */
export function toGa4Event(
  event: AnalyticsEvent,
  options: Ga4MappingOptions,
): Ga4Event {
  const properties = event.properties;
  let name: string;
  const params: Ga4Params = {};
  let rest: [string, unknown][];
  if (event.type === "page") {
    name = "page_view";
    const location = properties.url ?? properties.page_location;
    const title = properties.title ?? properties.page_title ??
      (event.name !== "page" ? event.name : undefined);
    const referrer = properties.referrer ?? properties.page_referrer;
    if (location !== undefined) params.page_location = scalar(location)!;
    if (title !== undefined) params.page_title = scalar(title)!;
    if (referrer !== undefined && referrer !== "") {
      params.page_referrer = scalar(referrer)!;
    }
    rest = Object.entries(properties).filter(([key]) =>
      !PAGE_PROPERTIES.has(key) && key !== "page_location" &&
      key !== "page_title" && key !== "page_referrer"
    );
  } else {
    const snake = toSnakeCase(event.name);
    const ecommerce = options.enhancedEcommerce
      ? (ECOMMERCE_EVENTS.has(snake) ? snake : ECOMMERCE_ALIASES[snake])
      : undefined;
    if (ecommerce !== undefined) {
      name = ecommerce;
      rest = mapEcommerce(ecommerce, properties, params, options);
    } else {
      name = eventName(event.name);
      rest = Object.entries(properties);
    }
  }
  for (const [key, value] of rest) {
    if (Object.keys(params).length >= MAX_PARAMS) break;
    if (options.anonymizeIp && (isIdentifyingKey(key) || isIpLike(value))) {
      continue;
    }
    const mapped = scalar(value);
    if (mapped === undefined) continue;
    const paramName = identifier(key, MAX_NAME);
    if (paramName in params) continue;
    params[paramName] = mapped;
  }
  if (event.sampleRate < 1 && Object.keys(params).length < MAX_PARAMS) {
    params.sample_rate = event.sampleRate;
  }
  if (options.anonymizeIp) {
    for (const key of Object.keys(params)) {
      const value = params[key];
      if (!Array.isArray(value) && isIpLike(value)) delete params[key];
    }
  }
  return {
    name,
    params,
    timestamp_micros: Math.round(event.timestamp * 1000),
  };
}

/** Maps identify traits onto GA4 user properties. */
export function toGa4UserProperties(
  traits: AnalyticsProperties,
  anonymizeIp: boolean,
): Ga4UserProperties {
  const out: Ga4UserProperties = {};
  let count = 0;
  for (const [key, value] of Object.entries(traits)) {
    if (count >= MAX_USER_PROPERTIES) break;
    if (anonymizeIp && (isIdentifyingKey(key) || isIpLike(value))) continue;
    let name = identifier(key, MAX_USER_PROPERTY_NAME);
    if (RESERVED_USER_PROPERTIES.has(name)) {
      name = ("app_" + name).slice(0, MAX_USER_PROPERTY_NAME);
    }
    const mapped = scalar(value, MAX_USER_PROPERTY_VALUE);
    if (mapped === undefined) continue;
    out[name] = { value: mapped };
    count++;
  }
  return out;
}

/** A GA4 event name: snake_case, letters, digits, `_`, starting with a letter. */
export function eventName(name: string): string {
  const result = identifier(name, MAX_NAME);
  return RESERVED_EVENT_NAMES.has(result)
    ? ("app_" + result).slice(0, MAX_NAME)
    : result;
}

function identifier(text: string, max: number): string {
  let result = toSnakeCase(text).replace(/[^a-z0-9_]/g, "");
  if (result === "") result = "event";
  if (!/^[a-z]/.test(result)) result = "e_" + result;
  if (RESERVED_PREFIXES.some((prefix) => result.startsWith(prefix))) {
    result = "app_" + result;
  }
  return result.slice(0, max);
}

function scalar(
  value: unknown,
  max: number = MAX_VALUE,
): Ga4ParamValue | undefined {
  switch (typeof value) {
    case "string":
      return value.length > max ? value.slice(0, max) : value;
    case "number":
      return Number.isFinite(value) ? value : undefined;
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString().slice(0, max);
    case "object": {
      if (value === null) return undefined;
      if (value instanceof Date) {
        return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
      }
      try {
        return JSON.stringify(value).slice(0, max);
      } catch {
        return undefined;
      }
    }
    default:
      return undefined;
  }
}

function pick(properties: AnalyticsProperties, names: string[]): unknown {
  for (const name of names) {
    const value = properties[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

// Fills the ecommerce params and returns the properties left for the generic
// mapping.
function mapEcommerce(
  name: string,
  properties: AnalyticsProperties,
  params: Ga4Params,
  options: Ga4MappingOptions,
): [string, unknown][] {
  const used = new Set<string>(["items", "products"]);
  const rawItems = pick(properties, ["items", "products"]);
  let items: Ga4Item[] | undefined;
  if (Array.isArray(rawItems)) {
    items = rawItems.slice(0, MAX_ITEMS).flatMap((item) =>
      typeof item === "object" && item !== null
        ? [mapItem(item as AnalyticsProperties, options)]
        : []
    );
  } else if (
    SINGLE_ITEM_EVENTS.has(name) &&
    pick(properties, [
        "item_id",
        "itemId",
        "productId",
        "product_id",
        "sku",
      ]) !==
      undefined
  ) {
    // Segment-style product events carry one product in the properties.
    const item: Ga4Item = {};
    for (const [target, sources] of ITEM_FIELDS) {
      for (const source of sources) {
        const value = properties[source];
        if (value === undefined || value === null) continue;
        used.add(source);
        if (target in item) continue;
        const mapped = NUMERIC_FIELDS.has(target)
          ? toNumber(value)
          : scalar(value);
        if (mapped !== undefined) item[target] = mapped;
      }
    }
    items = [item];
  }
  const itemKeys = new Set(used);
  for (const [target, sources] of ECOMMERCE_PARAMS) {
    for (const source of sources) {
      const value = properties[source];
      if (value === undefined || value === null) continue;
      // Coupon and affiliation may describe the order and the item alike.
      if (
        itemKeys.has(source) && target !== "coupon" && target !== "affiliation"
      ) {
        continue;
      }
      used.add(source);
      if (target in params) continue;
      const mapped = NUMERIC_FIELDS.has(target)
        ? toNumber(value)
        : scalar(value);
      if (mapped === undefined) continue;
      params[target] = target === "currency"
        ? String(mapped).toUpperCase()
        : mapped;
    }
  }
  if (items === undefined) {
    return Object.entries(properties).filter(([key]) => !used.has(key));
  }
  params.items = items;
  if (params.value === undefined && items.length > 0) {
    let total = 0;
    let priced = false;
    for (const item of items) {
      if (typeof item.price === "number") {
        priced = true;
        total += item.price *
          (typeof item.quantity === "number" ? item.quantity : 1);
      }
    }
    if (priced) params.value = Math.round(total * 100) / 100;
  }
  return Object.entries(properties).filter(([key]) => !used.has(key));
}

function mapItem(
  item: AnalyticsProperties,
  options: Ga4MappingOptions,
): Ga4Item {
  const out: Ga4Item = {};
  for (const [target, sources] of ITEM_FIELDS) {
    const value = pick(item, sources);
    if (value === undefined) continue;
    const mapped = NUMERIC_FIELDS.has(target) ? toNumber(value) : scalar(value);
    if (mapped !== undefined) out[target] = mapped;
  }
  // Custom item parameters (GA4 accepts a few dozen).
  for (const [key, value] of Object.entries(item)) {
    if (ITEM_FIELD_SOURCES.has(key)) continue;
    if (options.anonymizeIp && (isIdentifyingKey(key) || isIpLike(value))) {
      continue;
    }
    const mapped = scalar(value);
    if (mapped === undefined) continue;
    const name = identifier(key, MAX_NAME);
    if (!(name in out)) out[name] = mapped;
  }
  return out;
}

function toNumber(value: unknown): number | undefined {
  const number = typeof value === "number" ? value : Number(value);
  return Number.isFinite(number) ? number : undefined;
}
