// Internal: automatic tracking in browsers. Reached only after feature
// detection (isBrowser()); the DOM is described structurally here so the
// module type-checks without the DOM library and never touches a global
// prototype: history methods are wrapped on the `history` instance only and
// restored on uninstall.
import type { AnalyticsProperties } from "./analytics_event.ts";

interface Listenable {
  addEventListener(
    type: string,
    listener: (event: never) => void,
    options?: { once?: boolean; capture?: boolean },
  ): void;
  removeEventListener(
    type: string,
    listener: (event: never) => void,
    options?: { capture?: boolean },
  ): void;
}

interface BrowserDocument extends Listenable {
  readonly title: string;
  readonly referrer: string;
  readonly readyState: string;
  readonly visibilityState?: string;
}

interface BrowserLocation {
  readonly href: string;
  readonly pathname: string;
  readonly search: string;
}

type HistoryMethod = (this: unknown, ...args: unknown[]) => unknown;

interface BrowserHistory {
  pushState: HistoryMethod;
  replaceState: HistoryMethod;
}

interface PerformanceEntryLike {
  readonly entryType: string;
  readonly startTime: number;
  readonly duration: number;
  readonly name: string;
  // navigation
  readonly responseStart?: number;
  readonly domInteractive?: number;
  readonly domContentLoadedEventEnd?: number;
  readonly loadEventEnd?: number;
  readonly transferSize?: number;
  readonly type?: string;
  // largest-contentful-paint
  readonly size?: number;
  readonly element?: { tagName?: string } | null;
  // layout-shift
  readonly value?: number;
  readonly hadRecentInput?: boolean;
  // event
  readonly interactionId?: number;
}

interface PerformanceObserverLike {
  observe(options: Record<string, unknown>): void;
  disconnect(): void;
}

interface PerformanceObserverConstructor {
  new (
    callback: (list: { getEntries(): PerformanceEntryLike[] }) => void,
  ): PerformanceObserverLike;
  readonly supportedEntryTypes?: readonly string[];
}

interface BrowserGlobals extends Listenable {
  readonly document: BrowserDocument;
  readonly location: BrowserLocation;
  readonly history: BrowserHistory;
  readonly PerformanceObserver?: PerformanceObserverConstructor;
  readonly performance?: {
    getEntriesByType?(type: string): PerformanceEntryLike[];
  };
}

/** The browser globals, or undefined outside a browser (Deno, Node, Bun, workers). */
export function browserGlobals(): BrowserGlobals | undefined {
  const g = globalThis as Partial<BrowserGlobals>;
  if (
    typeof g.document === "object" && g.document !== null &&
    typeof g.location === "object" && g.location !== null &&
    typeof g.history === "object" && g.history !== null &&
    typeof g.addEventListener === "function"
  ) {
    return g as BrowserGlobals;
  }
  return undefined;
}

/** url, path, search and title of the current page. */
export function pageProperties(): AnalyticsProperties {
  const w = browserGlobals();
  if (w === undefined) return {};
  return {
    url: w.location.href,
    path: w.location.pathname,
    search: w.location.search,
    title: w.document.title,
  };
}

/**
 * Page views: one on load (or at once when the page has loaded already),
 * one per history.pushState/replaceState and popstate that changes the URL.
 */
export function installPageTracking(
  onPage: (properties: AnalyticsProperties) => void,
): () => void {
  const w = browserGlobals()!;
  let active = true;
  let lastHref: string | undefined;
  const navigate = (navigationType: string): void => {
    if (!active) return;
    const href = w.location.href;
    if (href === lastHref) return;
    const referrer = lastHref ?? w.document.referrer;
    lastHref = href;
    onPage({ ...pageProperties(), referrer, navigationType });
  };
  const onReady = (): void => navigate("load");
  // Deferred to the next task either way, so that providers added right after
  // the manager was created or configured receive the first page view.
  let readyTimer: ReturnType<typeof setTimeout> | undefined;
  if (w.document.readyState === "loading") {
    w.document.addEventListener("DOMContentLoaded", onReady, { once: true });
  } else {
    readyTimer = setTimeout(onReady, 0);
  }
  const restorePush = wrapHistoryMethod(
    w.history,
    "pushState",
    () => navigate("pushState"),
  );
  const restoreReplace = wrapHistoryMethod(
    w.history,
    "replaceState",
    () => navigate("replaceState"),
  );
  const onPopState = (): void => navigate("popstate");
  w.addEventListener("popstate", onPopState);
  return () => {
    active = false;
    if (readyTimer !== undefined) clearTimeout(readyTimer);
    w.document.removeEventListener("DOMContentLoaded", onReady);
    w.removeEventListener("popstate", onPopState);
    restorePush();
    restoreReplace();
  };
}

// Shadows the method on the instance. On restore, removes the shadow (or
// puts back a previous own value) unless someone wrapped it after us; then our
// wrapper stays in their chain as a pass-through.
function wrapHistoryMethod(
  history: BrowserHistory,
  method: "pushState" | "replaceState",
  after: () => void,
): () => void {
  const hadOwn = Object.prototype.hasOwnProperty.call(history, method);
  const previous = history[method];
  let enabled = true;
  const wrapper: HistoryMethod = function (this: unknown, ...args: unknown[]) {
    const result = previous.apply(this, args);
    if (enabled) after();
    return result;
  };
  history[method] = wrapper;
  return () => {
    enabled = false;
    if (history[method] !== wrapper) return;
    if (hadOwn) history[method] = previous;
    else delete (history as Partial<BrowserHistory>)[method];
  };
}

interface ErrorEventLike {
  readonly message?: string;
  readonly filename?: string;
  readonly lineno?: number;
  readonly colno?: number;
  readonly error?: unknown;
}

/** Error events (`error`, `unhandledrejection`). Never prevents the default. */
export function installBrowserErrorTracking(
  onError: (properties: AnalyticsProperties) => void,
): () => void {
  const w = browserGlobals()!;
  const handleError = (event: ErrorEventLike): void => {
    const properties = exceptionProperties(event.error, "error", false);
    if (event.message) properties.description = event.message;
    if (event.filename) properties.filename = event.filename;
    if (event.lineno) properties.lineno = event.lineno;
    if (event.colno) properties.colno = event.colno;
    onError(properties);
  };
  const handleRejection = (event: { readonly reason?: unknown }): void => {
    onError(exceptionProperties(event.reason, "unhandledrejection", false));
  };
  w.addEventListener("error", handleError);
  w.addEventListener("unhandledrejection", handleRejection);
  return () => {
    w.removeEventListener("error", handleError);
    w.removeEventListener("unhandledrejection", handleRejection);
  };
}

/** The properties of an `exception` event for a thrown value. */
export function exceptionProperties(
  value: unknown,
  source: string,
  fatal: boolean,
): AnalyticsProperties {
  const properties: AnalyticsProperties = { source, fatal };
  if (value instanceof Error) {
    properties.description = value.message;
    properties.errorName = value.name;
    if (typeof value.stack === "string") {
      properties.stack = value.stack.slice(0, 1000);
    }
  } else {
    let description: string;
    try {
      description = typeof value === "string" ? value : JSON.stringify(value);
    } catch {
      description = String(value);
    }
    properties.description = String(description).slice(0, 1000);
  }
  return properties;
}

/** Performance tracking; `finalize` reports the vitals known so far. */
export interface PerformanceTracking {
  finalize(): void;
  uninstall(): void;
}

/**
 * Performance events through PerformanceObserver, each only where the
 * browser supports the entry type: navigation timing (after load), LCP, CLS
 * (largest session window) and INP (an approximation: the worst interaction,
 * skipping one per 50), the last three reported once when the page is hidden
 * or tracking stops.
 */
export function installPerformanceTracking(
  report: (properties: AnalyticsProperties) => void,
): PerformanceTracking {
  const w = browserGlobals()!;
  const Observer = w.PerformanceObserver;
  if (Observer === undefined) return { finalize() {}, uninstall() {} };
  const supported = Observer.supportedEntryTypes ?? [];
  const observers: PerformanceObserverLike[] = [];
  const observe = (
    type: string,
    callback: (entries: PerformanceEntryLike[]) => void,
    extra: Record<string, unknown> = {},
  ): boolean => {
    if (!supported.includes(type)) return false;
    try {
      const observer = new Observer((list) => callback(list.getEntries()));
      observer.observe({ type, buffered: true, ...extra });
      observers.push(observer);
      return true;
    } catch {
      return false;
    }
  };

  // Navigation timing, once the load event is over.
  let navigationDone = false;
  const reportNavigation = (entry: PerformanceEntryLike | undefined): void => {
    if (navigationDone || entry === undefined) return;
    if (!((entry.loadEventEnd ?? 0) > 0)) return;
    navigationDone = true;
    report({
      metric: "navigation",
      value: round(entry.duration),
      ttfb: round(entry.responseStart ?? 0),
      domInteractive: round(entry.domInteractive ?? 0),
      domContentLoaded: round(entry.domContentLoadedEventEnd ?? 0),
      load: round(entry.loadEventEnd ?? 0),
      transferSize: entry.transferSize ?? 0,
      navigationType: entry.type ?? "navigate",
    });
  };
  observe("navigation", (entries) => entries.forEach(reportNavigation));
  let loadTimer: ReturnType<typeof setTimeout> | undefined;
  const onLoad = (): void => {
    // loadEventEnd is set right after the load handlers have run.
    loadTimer = setTimeout(() => {
      loadTimer = undefined;
      reportNavigation(w.performance?.getEntriesByType?.("navigation")?.[0]);
    }, 0);
  };
  if (w.document.readyState === "complete") onLoad();
  else w.addEventListener("load", onLoad, { once: true });

  // Largest Contentful Paint: the last candidate before the first input.
  let lcp: PerformanceEntryLike | undefined;
  let lcpFrozen = false;
  const hasLcp = observe("largest-contentful-paint", (entries) => {
    if (!lcpFrozen && entries.length > 0) lcp = entries[entries.length - 1];
  });
  const freezeLcp = (): void => {
    lcpFrozen = true;
  };
  w.addEventListener("keydown", freezeLcp, { once: true, capture: true });
  w.addEventListener("pointerdown", freezeLcp, { once: true, capture: true });

  // Cumulative Layout Shift: the largest session window (gaps < 1 s, < 5 s).
  let cls = 0;
  let sessionValue = 0;
  let sessionStart = 0;
  let sessionLast = 0;
  const hasCls = observe("layout-shift", (entries) => {
    for (const entry of entries) {
      if (entry.hadRecentInput) continue;
      const value = entry.value ?? 0;
      if (
        sessionValue > 0 && entry.startTime - sessionLast < 1000 &&
        entry.startTime - sessionStart < 5000
      ) {
        sessionValue += value;
      } else {
        sessionValue = value;
        sessionStart = entry.startTime;
      }
      sessionLast = entry.startTime;
      if (sessionValue > cls) cls = sessionValue;
    }
  });

  // Interaction to Next Paint: longest duration per interaction.
  const interactions = new Map<number, number>();
  const recordInteractions = (entries: PerformanceEntryLike[]): void => {
    for (const entry of entries) {
      const id = entry.interactionId ?? 0;
      if (id === 0) continue;
      const previous = interactions.get(id) ?? 0;
      if (entry.duration > previous) interactions.set(id, entry.duration);
    }
  };
  const hasInp = observe("event", recordInteractions, {
    durationThreshold: 16,
  });
  if (hasInp) observe("first-input", recordInteractions);

  let finalized = false;
  return {
    finalize(): void {
      if (finalized) return;
      finalized = true;
      if (hasLcp && lcp !== undefined) {
        report({
          metric: "LCP",
          value: round(lcp.startTime),
          element: lcp.element?.tagName?.toLowerCase() ?? "",
          size: lcp.size ?? 0,
        });
      }
      if (hasCls) {
        report({ metric: "CLS", value: Math.round(cls * 10000) / 10000 });
      }
      if (hasInp && interactions.size > 0) {
        const durations = [...interactions.values()].sort((a, b) => b - a);
        const index = Math.min(
          durations.length - 1,
          Math.floor(durations.length / 50),
        );
        report({
          metric: "INP",
          value: round(durations[index]),
          interactions: durations.length,
        });
      }
    },
    uninstall(): void {
      for (const observer of observers) observer.disconnect();
      observers.length = 0;
      if (loadTimer !== undefined) clearTimeout(loadTimer);
      w.removeEventListener("load", onLoad);
      w.removeEventListener("keydown", freezeLcp, { capture: true });
      w.removeEventListener("pointerdown", freezeLcp, { capture: true });
    },
  };
}

/**
 * Calls `onHide` when the page is hidden or being unloaded (`visibilitychange`
 * to hidden, `pagehide`), the last moment to send data reliably.
 */
export function installPageHideHook(onHide: () => void): () => void {
  const w = browserGlobals()!;
  const onVisibility = (): void => {
    if (w.document.visibilityState === "hidden") onHide();
  };
  w.document.addEventListener("visibilitychange", onVisibility);
  w.addEventListener("pagehide", onHide);
  return () => {
    w.document.removeEventListener("visibilitychange", onVisibility);
    w.removeEventListener("pagehide", onHide);
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
