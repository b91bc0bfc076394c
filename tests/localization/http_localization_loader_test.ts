import { test } from "node:test";
import assert from "node:assert/strict";
import ky from "ky";
import {
  DefaultCultureProvider,
  HttpLocalizationLoader,
  InvalidCultureError,
  LoaderLocalizationProvider,
  type LocalizationHttpClient,
  LocalizationLoadError,
  LocalizationManager,
  LocalizationResourceError,
} from "../../localization/mod.ts";
import {
  sendJson,
  startTestServer,
  type TestHandler,
  type TestServer,
} from "../_support/http_server.ts";

const RESOURCES: Record<string, unknown> = {
  en: { home: { title: "Welcome", help: "Help" }, greeting: "Hello {0}" },
  fr: { home: { title: "Bienvenue" } },
  de: { home: { title: "Willkommen" } },
};

const PATH = /^\/api\/localization\/([^/]+)\.json$/;

/** Serves RESOURCES at /api/localization/{culture}.json, 404 otherwise. */
function serve(delays: Record<string, number> = {}): TestHandler {
  return (request, response) => {
    const culture = PATH.exec(request.url)?.[1];
    const resource = culture === undefined ? undefined : RESOURCES[culture];
    const answer = () =>
      resource === undefined
        ? sendJson(response, 404, { message: "not found" })
        : sendJson(response, 200, resource);
    const delay = culture === undefined ? 0 : delays[culture] ?? 0;
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  };
}

async function withServer(
  run: (server: TestServer) => Promise<void>,
  delays: Record<string, number> = {},
): Promise<void> {
  const server = await startTestServer(serve(delays));
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function template(server: TestServer): string {
  return `${server.url}/api/localization/{culture}.json`;
}

function managerFor(
  loader: HttpLocalizationLoader,
  fallbackCulture?: string,
): LocalizationManager {
  return new LocalizationManager(
    new LoaderLocalizationProvider(loader),
    new DefaultCultureProvider("en"),
    undefined,
    undefined,
    undefined,
    { fallbackCulture },
  );
}

/** A small retrying client over ky, the shape Kit's HttpClient has. */
function retryingClient(retries: number): LocalizationHttpClient {
  return {
    get: <T>(url: string): Promise<T> =>
      ky.get(url, { retry: { limit: retries, delay: () => 10 } }).json<T>(),
  };
}

function requestsFor(server: TestServer, culture: string): number {
  return server.requests.filter((r) =>
    r.url === `/api/localization/${culture}.json`
  ).length;
}

test("HttpLocalizationLoader requires {culture} in the template", () => {
  assert.throws(
    () => new HttpLocalizationLoader("/api/localization/en.json"),
    TypeError,
  );
});

test("HttpLocalizationLoader.addressOf() fills {culture}", () => {
  const loader = new HttpLocalizationLoader("/api/localization/{culture}.json");
  assert.equal(loader.addressOf("fr-CA"), "/api/localization/fr-CA.json");
  assert.equal(loader.template, "/api/localization/{culture}.json");
});

test("HttpLocalizationLoader fetches /api/localization/{culture}.json and the manager translates from it", async () => {
  await withServer(async (server) => {
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await manager.setCulture("fr");
    assert.equal(manager.t("home.title"), "Bienvenue");
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].method, "GET");
    assert.equal(server.requests[0].url, "/api/localization/fr.json");
    assert.equal(server.requests[0].headers.accept, "application/json");
  });
});

test("HttpLocalizationLoader resources are flattened to dotted keys", async () => {
  await withServer(async (server) => {
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await manager.setCulture("en");
    assert.equal(manager.t("home.help"), "Help");
    assert.equal(manager.t("greeting", "Ada"), "Hello Ada");
  });
});

test("HttpLocalizationLoader: a 404 raises a LocalizationLoadError naming the culture and the address", async () => {
  await withServer(async (server) => {
    const loader = new HttpLocalizationLoader(template(server));
    const address = `${server.url}/api/localization/de-AT.json`;
    await assert.rejects(loader.load("de-AT"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(
        error.message,
        `Failed to load translations for culture "de-AT" from ${address}: HTTP 404 Not Found`,
      );
      assert.equal(error.culture, "de-AT");
      assert.equal(error.address, address);
      assert.equal(error.status, 404);
      assert.equal(error.notFound, true);
      return true;
    });
    // Through the manager, with no culture of the chain found.
    const manager = managerFor(loader);
    await assert.rejects(manager.setCulture("it"), {
      name: "LocalizationLoadError",
      message:
        `Failed to load translations for culture "it" from ${server.url}/api/localization/it.json: HTTP 404 Not Found`,
    });
  });
});

test("HttpLocalizationLoader: a 404 for fr-CA falls back to fr and the fallback culture", async () => {
  await withServer(async (server) => {
    const manager = managerFor(
      new HttpLocalizationLoader(template(server)),
      "en",
    );
    await manager.setCulture("fr-CA");
    assert.equal(manager.t("home.title"), "Bienvenue");
    assert.equal(manager.t("home.help"), "Help");
    assert.equal(requestsFor(server, "fr-CA"), 1);
  });
});

test("HttpLocalizationLoader without a client makes one request: a 500 fails with the status and the address", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => {
      sendJson(response, 500, { message: "boom" });
    });
    const loader = new HttpLocalizationLoader(template(server));
    await assert.rejects(loader.load("en"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.status, 500);
      assert.equal(error.notFound, false);
      assert.equal(
        error.message,
        `Failed to load translations for culture "en" from ${server.url}/api/localization/en.json: HTTP 500 Internal Server Error`,
      );
      return true;
    });
    assert.equal(server.requests.length, 1);
  });
});

test("HttpLocalizationLoader with a retrying client: a 500 then a success loads the culture", async () => {
  await withServer(async (server) => {
    const handler = serve();
    let failures = 1;
    server.setHandler((request, response, raw) => {
      if (failures-- > 0) sendJson(response, 500, { message: "try again" });
      else handler(request, response, raw);
    });
    const manager = managerFor(
      new HttpLocalizationLoader(template(server), {
        client: retryingClient(2),
      }),
    );
    await manager.setCulture("de");
    assert.equal(manager.t("home.title"), "Willkommen");
    assert.equal(requestsFor(server, "de"), 2);
  });
});

test("HttpLocalizationLoader with a client: a failure after the retries names the culture, the address and the status", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => {
      sendJson(response, 503, { message: "down" });
    });
    const loader = new HttpLocalizationLoader(template(server), {
      client: retryingClient(1),
    });
    await assert.rejects(loader.load("fr"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.status, 503);
      assert.match(
        error.message,
        new RegExp(
          `^Failed to load translations for culture "fr" from ${server.url}/api/localization/fr\\.json: HTTP 503`,
        ),
      );
      return true;
    });
    assert.equal(server.requests.length, 2);
  });
});

test("HttpLocalizationLoader with a client: a 404 is a not-found error", async () => {
  await withServer(async (server) => {
    const loader = new HttpLocalizationLoader(template(server), {
      client: retryingClient(2),
    });
    await assert.rejects(loader.load("pt"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.notFound, true);
      assert.equal(error.status, 404);
      return true;
    });
  });
});

test("HttpLocalizationLoader: a body that is not JSON is a LocalizationLoadError", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{ not json");
    });
    await assert.rejects(
      new HttpLocalizationLoader(template(server)).load("en"),
      /^LocalizationLoadError: Failed to load translations for culture "en" from .*: the response is not JSON/,
    );
  });
});

test("HttpLocalizationLoader: an unreachable server raises an error naming the culture and the address", async () => {
  const server = await startTestServer();
  const address = template(server);
  await server.close();
  const loader = new HttpLocalizationLoader(address);
  await assert.rejects(loader.load("en"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.ok(
      error.message.startsWith(
        `Failed to load translations for culture "en" from ${
          address.replace("{culture}", "en")
        }: `,
      ),
      error.message,
    );
    return true;
  });
});

test("HttpLocalizationLoader: a resource that is not an object of strings names the key and the address", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => {
      sendJson(response, 200, { home: { title: ["not", "a", "string"] } });
    });
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await assert.rejects(manager.setCulture("en"), (error: unknown) => {
      assert.ok(error instanceof LocalizationResourceError);
      assert.equal(error.key, "home.title");
      assert.equal(error.address, `${server.url}/api/localization/en.json`);
      return true;
    });
  });
});

test("HttpLocalizationLoader uses an injected fetch", async () => {
  await withServer(async (server) => {
    const seen: string[] = [];
    const loader = new HttpLocalizationLoader(template(server), {
      fetch: (input, init) => {
        seen.push(input);
        return fetch(input, init);
      },
      headers: { "x-app": "kit" },
    });
    assert.deepEqual(await loader.load("de"), RESOURCES.de);
    assert.deepEqual(seen, [`${server.url}/api/localization/de.json`]);
    assert.equal(server.requests[0].headers["x-app"], "kit");
  });
});

for (const bad of ["../../etc/passwd", "fr?x=1", "fr/../de", "en%2F..", "x"]) {
  test(`HttpLocalizationLoader never requests a bad culture (${bad})`, async () => {
    await withServer(async (server) => {
      const loader = new HttpLocalizationLoader(template(server));
      await assert.rejects(loader.load(bad), InvalidCultureError);
      await assert.rejects(
        managerFor(loader).setCulture(bad),
        InvalidCultureError,
      );
      assert.equal(server.requests.length, 0);
    });
  });
}

test("slow responses: setCulture(fr) slow then setCulture(de) fast ends on de, with one cultureChanged", async () => {
  await withServer(async (server) => {
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await manager.setCulture("en");
    const events: string[] = [];
    manager.cultureChanged.add((culture) => {
      events.push(culture);
    });
    const fr = manager.setCulture("fr");
    const de = manager.setCulture("de");
    await de;
    assert.equal(manager.culture, "de");
    await fr;
    assert.equal(manager.culture, "de");
    assert.equal(manager.t("home.title"), "Willkommen");
    assert.deepEqual(events, ["de"]);
  }, { fr: 300 });
});

test("slow responses: setCulture(fr) fast then setCulture(de) slow ends on de; en serves meanwhile", async () => {
  await withServer(async (server) => {
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await manager.setCulture("en");
    const events: string[] = [];
    manager.cultureChanged.add((culture) => {
      events.push(culture);
    });
    const fr = manager.setCulture("fr");
    const de = manager.setCulture("de");
    await fr;
    assert.equal(manager.culture, "en");
    assert.equal(manager.t("home.title"), "Welcome");
    await de;
    assert.equal(manager.culture, "de");
    assert.deepEqual(events, ["de"]);
  }, { de: 300 });
});

test("slow responses: concurrent setCulture() calls for one culture make one request", async () => {
  await withServer(async (server) => {
    const manager = managerFor(new HttpLocalizationLoader(template(server)));
    await Promise.all([
      manager.setCulture("fr"),
      manager.setCulture("fr"),
      manager.setCulture("fr"),
    ]);
    assert.equal(requestsFor(server, "fr"), 1);
    assert.equal(manager.t("home.title"), "Bienvenue");
  }, { fr: 200 });
});

test("HttpLocalizationLoader: a network failure names the full address and the network cause", async () => {
  const server = await startTestServer();
  const address = `${server.url}/api/localization/en.json`;
  await server.close(); // nothing listens on the port any more
  const loader = new HttpLocalizationLoader(
    `${server.url}/api/localization/{culture}.json`,
    { timeout: 5_000 },
  );
  await assert.rejects(loader.load("en"), (error: unknown) => {
    assert.ok(error instanceof LocalizationLoadError);
    assert.ok(
      error.message.startsWith(
        `Failed to load translations for culture "en" from ${address}: `,
      ),
      error.message,
    );
    // Node's fetch says only "fetch failed"; the refusal is its cause.
    assert.match(error.message, /ECONNREFUSED|refused/i);
    return true;
  });
});
