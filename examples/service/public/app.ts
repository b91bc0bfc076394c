/// <reference lib="dom" />
// The example service's page, bundled for browsers by ../build_page.ts: Kit's
// localization re-renders on `cultureChanged`, HttpClient calls the service
// with a bearer token (refreshed once on a 401) and a request id, and
// analytics tracks pages, errors and performance to the service's
// /api/analytics.
import {
  AuthInterceptor,
  ErrorInterceptor,
  HttpClient,
  HttpError,
  StorageTokenSource,
} from "@vendor/kit-platform-http";
import {
  DefaultCultureProvider,
  HttpLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationManager,
} from "@vendor/kit-platform-localization";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "@vendor/kit-platform-analytics";

const CULTURES = ["en-US", "fr-FR"];
const CULTURE_KEY = "culture";
const VISITOR_KEY = "visitorId";

/** What `GET /api/me` answers. */
interface Me {
  name: string;
  message: string;
  requestId: string;
  tokenId: string;
}

function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`The page has no #${id}`);
  return found as T;
}

// Analytics: page views (load and history navigation), uncaught errors and
// performance, sent in small batches to the service, which forwards them.
function visitorId(): string {
  let id = localStorage.getItem(VISITOR_KEY);
  if (id === null) {
    id = crypto.randomUUID();
    localStorage.setItem(VISITOR_KEY, id);
  }
  return id;
}
const analytics = new AnalyticsManager({ anonymousId: visitorId() });
analytics.addProvider(
  new CustomAnalyticsProvider({
    endpoint: "/api/analytics",
    batchSize: 10,
    flushInterval: 1000,
  }),
);
analytics.configure({
  enableAutoPageTracking: true,
  enableErrorTracking: true,
  enablePerformanceTracking: true,
  samplingRate: 1,
});

// Translations from the service's /api/localization/{culture}.json; the page
// re-renders whenever the culture changes.
const saved = localStorage.getItem(CULTURE_KEY);
const localization = new LocalizationManager(
  new LoaderLocalizationProvider(
    new HttpLocalizationLoader("/api/localization/{culture}.json"),
  ),
  new DefaultCultureProvider(
    saved !== null && CULTURES.includes(saved) ? saved : "en-US",
  ),
  (key) => `[${key}]`,
);
const t = localization.t;

// Calls to the service: ErrorInterceptor first (X-Request-ID, HttpError),
// then AuthInterceptor (its onResponse sees a 401 first and replays once).
const tokens = new StorageTokenSource(); // localStorage, key "authToken"
const api = new HttpClient("/api", { timeout: 10_000, retryAttempts: 1 });
api.addInterceptor(new ErrorInterceptor());
api.addInterceptor(
  new AuthInterceptor({
    getToken: () => tokens.getToken(),
    isExpired: (token) => {
      const expires = claims(token)?.exp;
      return typeof expires === "number" && expires * 1000 <= Date.now();
    },
    // Not through `api`: a refresh must not wait for itself. The refresh
    // token travels in an HttpOnly cookie the page cannot read.
    refreshToken: async () => {
      const response = await fetch("/api/auth/refresh", {
        method: "POST",
        credentials: "same-origin",
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) {
        tokens.clear();
        render();
        throw await HttpError.fromResponse(response);
      }
      const { token } = await response.json() as { token: string };
      tokens.setToken(token);
      return token;
    },
  }),
);

// The claims of a JSON Web Token, read without checking it (the service
// checks it): for the name shown and the expiry.
function claims(
  token: string | null,
): { sub?: string; exp?: number } | undefined {
  const payload = token?.split(".")[1];
  if (!payload) return undefined;
  try {
    const text = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

// The two views, switched with history.pushState (page tracking sees each).
const VIEWS: Record<string, string> = { "/": "home", "/about": "about" };
function view(): string {
  return VIEWS[location.pathname] ?? "home";
}

let lastCall: (() => string) | undefined;

function render(): void {
  const name = view();
  element("view-title").dataset.i18n = `page.${name}.title`;
  element("view-text").dataset.i18n = `page.${name}.text`;
  for (const node of document.querySelectorAll<HTMLElement>("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n!);
  }
  document.documentElement.lang = localization.culture;
  document.title = `${t(`page.${name}.title`)} · ${t("page.title")}`;
  for (
    const link of document.querySelectorAll<HTMLAnchorElement>("a[data-nav]")
  ) {
    if (link.pathname === location.pathname) {
      link.setAttribute("aria-current", "page");
    } else link.removeAttribute("aria-current");
  }
  for (
    const button of document.querySelectorAll<HTMLElement>("[data-culture]")
  ) {
    button.setAttribute(
      "aria-pressed",
      String(button.dataset.culture === localization.culture),
    );
  }
  const user = claims(tokens.getToken())?.sub;
  element("auth-status").textContent = user
    ? t("page.auth.signedIn", user)
    : t("page.auth.signedOut");
  element("call-result").textContent = lastCall?.() ?? "";
}

localization.cultureChanged.add((culture) => {
  localStorage.setItem(CULTURE_KEY, culture);
  render();
});

for (const button of document.querySelectorAll<HTMLElement>("[data-culture]")) {
  button.addEventListener("click", () => {
    void localization.setCulture(button.dataset.culture!);
  });
}

for (
  const link of document.querySelectorAll<HTMLAnchorElement>("a[data-nav]")
) {
  link.addEventListener("click", (event) => {
    event.preventDefault();
    if (link.pathname === location.pathname) return;
    history.pushState({}, "", link.pathname);
    render();
  });
}
addEventListener("popstate", () => render());

element<HTMLFormElement>("sign-in-form").addEventListener(
  "submit",
  async (event) => {
    event.preventDefault();
    const name = element<HTMLInputElement>("name").value.trim();
    const response = await fetch("/api/auth/sign-in", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name }),
      credentials: "same-origin",
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.json() as { token?: string; message?: string };
    if (!response.ok || body.token === undefined) {
      lastCall = () => body.message ?? response.statusText;
    } else {
      tokens.setToken(body.token);
      analytics.track("sign_in");
      lastCall = undefined;
    }
    render();
  },
);

element("sign-out").addEventListener("click", async () => {
  tokens.clear();
  lastCall = undefined;
  await fetch("/api/auth/sign-out", {
    method: "POST",
    credentials: "same-origin",
    signal: AbortSignal.timeout(10_000),
  }).catch(() => {});
  render();
});

element("call").addEventListener("click", async () => {
  try {
    const me = await api.get<Me>("/me", {
      query: { culture: localization.culture },
    });
    lastCall = () => `${me.message}\n${t("page.call.requestId", me.requestId)}`;
  } catch (error) {
    const status = error instanceof HttpError ? ` (${error.status})` : "";
    const message = (error as Error).message;
    lastCall = () => `${t("page.call.failed")}${status}: ${message}`;
  }
  render();
});

element("throw").addEventListener("click", () => {
  throw new Error("Test error from the Kit example page");
});

await localization.setCulture(localization.culture);
render();
document.body.dataset.ready = "true";
