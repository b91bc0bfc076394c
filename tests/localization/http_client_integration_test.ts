// HttpLocalizationLoader over Kit's own HttpClient (http/), against a real
// loopback server: the client's base address and retry settings apply.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpClient } from "../../http/mod.ts";
import {
  DefaultCultureProvider,
  HttpLocalizationLoader,
  LoaderLocalizationProvider,
  type LocalizationHttpClient,
  LocalizationLoadError,
  LocalizationManager,
} from "../../localization/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";

const TEMPLATE = "/api/localization/{culture}.json";

function clientFor(url: string, retryAttempts: number): HttpClient {
  return new HttpClient(url, {
    retryAttempts,
    retryDelay: 10,
    retryJitter: 0,
    timeout: 5_000,
  });
}

test("Kit's HttpClient fits LocalizationHttpClient", () => {
  const client: LocalizationHttpClient = clientFor("http://127.0.0.1:1", 0);
  assert.equal(typeof client.get, "function");
});

test("HttpLocalizationLoader with Kit's HttpClient: a 500 then a success is retried per the client settings", async () => {
  const server = await startTestServer();
  try {
    let failures = 1;
    server.setHandler((request, response) => {
      if (failures-- > 0) {
        sendJson(response, 500, { message: "try again" });
      } else if (request.url === "/api/localization/fr.json") {
        sendJson(response, 200, { home: { title: "Bienvenue" } });
      } else {
        sendJson(response, 404, { message: "not found" });
      }
    });
    const manager = new LocalizationManager(
      new LoaderLocalizationProvider(
        new HttpLocalizationLoader(TEMPLATE, {
          client: clientFor(server.url, 2),
        }),
      ),
      new DefaultCultureProvider("en"),
    );
    await manager.setCulture("fr");
    assert.equal(manager.t("home.title"), "Bienvenue");
    assert.deepEqual(server.requests.map((r) => r.url), [
      "/api/localization/fr.json",
      "/api/localization/fr.json",
    ]);
  } finally {
    await server.close();
  }
});

test("HttpLocalizationLoader with Kit's HttpClient: a 404 is a not-found LocalizationLoadError naming the culture and the address", async () => {
  const server = await startTestServer((_request, response) => {
    sendJson(response, 404, { message: "no such culture" });
  });
  try {
    const loader = new HttpLocalizationLoader(TEMPLATE, {
      client: clientFor(server.url, 2),
    });
    await assert.rejects(loader.load("de-AT"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.status, 404);
      assert.equal(error.notFound, true);
      // The full address, host included, not the client's path: the path
      // alone does not say which server answered.
      assert.ok(
        error.message.startsWith(
          `Failed to load translations for culture "de-AT" from ${
            new URL("/api/localization/de-AT.json", server.url).href
          }: HTTP 404`,
        ),
        error.message,
      );
      assert.equal(
        error.address,
        new URL("/api/localization/de-AT.json", server.url).href,
      );
      return true;
    });
    assert.equal(server.requests.length, 1); // a 404 is not retried
  } finally {
    await server.close();
  }
});
