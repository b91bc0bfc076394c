// GA4's page-side collection protocol, the one Google's tag (gtag.js) uses
// from a browser: `POST <endpoint>?v=2&tid=<measurement id>&cid=<client id>…`
// with one line of URL-encoded parameters per event in the body. It needs no
// API secret, so a page can send with the tracking id alone.
import type { Ga4Event, Ga4Item, Ga4UserProperties } from "./_ga4.ts";

/** Where Google's tag sends events from a page. */
export const GA4_PAGE_ENDPOINT = "https://www.google-analytics.com/g/collect";

// Item fields of the Measurement Protocol and their short names in the page
// protocol's `pr<n>` parameter.
const ITEM_KEYS: Record<string, string> = {
  item_id: "id",
  item_name: "nm",
  item_brand: "br",
  item_category: "ca",
  item_category2: "c2",
  item_category3: "c3",
  item_category4: "c4",
  item_category5: "c5",
  item_variant: "va",
  price: "pr",
  quantity: "qt",
  coupon: "cp",
  affiliation: "af",
  discount: "ds",
  index: "lp",
  item_list_id: "li",
  item_list_name: "ln",
  location_id: "lo",
};

// Event parameters the page protocol carries under their own short names.
const EVENT_KEYS: Record<string, string> = {
  page_location: "dl",
  page_title: "dt",
  page_referrer: "dr",
  currency: "cu",
};

/** What the request of one batch shares. */
export interface PageBatchContext {
  trackingId: string;
  clientId: string;
  userId: string | undefined;
  userProperties: Ga4UserProperties | undefined;
}

/** The address of one batch: the endpoint with the shared parameters. */
export function pageCollectUrl(
  endpoint: string,
  context: PageBatchContext,
): string {
  const url = new URL(endpoint);
  const params = url.searchParams;
  params.set("v", "2");
  params.set("tid", context.trackingId);
  params.set("cid", context.clientId);
  if (context.userId !== undefined) params.set("uid", context.userId);
  for (
    const [name, { value }] of Object.entries(context.userProperties ?? {})
  ) {
    params.set(
      `${typeof value === "number" ? "upn" : "up"}.${name}`,
      String(value),
    );
  }
  const nav = (globalThis as { navigator?: { language?: string } }).navigator;
  if (typeof nav?.language === "string") {
    params.set("ul", nav.language.toLowerCase());
  }
  const screen =
    (globalThis as { screen?: { width?: number; height?: number } })
      .screen;
  if (typeof screen?.width === "number" && typeof screen.height === "number") {
    params.set("sr", `${screen.width}x${screen.height}`);
  }
  return url.href;
}

/** The body of one batch: one line of parameters per event. */
export function pageCollectBody(events: readonly Ga4Event[]): string {
  return events.map((event) => {
    const params = new URLSearchParams();
    params.set("en", event.name);
    for (const [key, value] of Object.entries(event.params)) {
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          params.set(`pr${index + 1}`, encodeItem(item));
        });
      } else if (EVENT_KEYS[key] !== undefined) {
        params.set(EVENT_KEYS[key], String(value));
      } else {
        params.set(
          `${typeof value === "number" ? "epn" : "ep"}.${key}`,
          String(value),
        );
      }
    }
    return params.toString();
  }).join("\n");
}

// `idSKU-1~nmShoes~pr49.9~qt2`; other fields as `k0<name>~v0<value>`.
function encodeItem(item: Ga4Item): string {
  const parts: string[] = [];
  let extra = 0;
  for (const [key, value] of Object.entries(item)) {
    const text = String(value).replace(/~/g, " ");
    const short = ITEM_KEYS[key];
    if (short !== undefined) parts.push(short + text);
    else if (extra < 10) {
      parts.push(`k${extra}${key}`, `v${extra}${text}`);
      extra++;
    }
  }
  return parts.join("~");
}
