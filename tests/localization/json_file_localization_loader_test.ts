import { test } from "node:test";
import { execFileSync } from "node:child_process";
import process from "node:process";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DefaultCultureProvider,
  InvalidCultureError,
  JsonFileLocalizationLoader,
  LoaderLocalizationProvider,
  LocalizationLoadError,
  LocalizationManager,
  LocalizationResourceError,
} from "../../localization/mod.ts";

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kit-localization-"));
  try {
    await mkdir(join(dir, "locales"));
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function writeResource(
  dir: string,
  culture: string,
  resource: unknown,
): Promise<void> {
  return writeFile(
    join(dir, "locales", `${culture}.json`),
    typeof resource === "string" ? resource : JSON.stringify(resource),
  );
}

function managerFor(
  loader: JsonFileLocalizationLoader,
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

test("JsonFileLocalizationLoader requires {culture} in the template", () => {
  assert.throws(() => new JsonFileLocalizationLoader("./en.json"), TypeError);
});

test("JsonFileLocalizationLoader reads {culture}.json files and the manager translates flattened keys", async () => {
  await withDir(async (dir) => {
    await writeResource(dir, "en", {
      home: { title: "Welcome", hero: { cta: "Start, {0}" } },
    });
    await writeResource(dir, "fr", { home: { title: "Bienvenue" } });
    const loader = new JsonFileLocalizationLoader(
      join(dir, "locales", "{culture}.json"),
    );
    const manager = managerFor(loader, "en");
    await manager.setCulture("fr");
    assert.equal(manager.t("home.title"), "Bienvenue");
    assert.equal(manager.t("home.hero.cta", "Ada"), "Start, Ada");
  });
});

test("JsonFileLocalizationLoader: a missing file is a not-found error naming the culture and the path", async () => {
  await withDir(async (dir) => {
    const loader = new JsonFileLocalizationLoader(
      join(dir, "locales", "{culture}.json"),
    );
    const path = join(dir, "locales", "de.json");
    await assert.rejects(loader.load("de"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(
        error.message,
        `Failed to load translations for culture "de" from ${path}: file not found`,
      );
      assert.equal(error.notFound, true);
      assert.equal(error.address, path);
      return true;
    });
  });
});

test("JsonFileLocalizationLoader: a missing file for fr-CA falls back to fr.json", async () => {
  await withDir(async (dir) => {
    await writeResource(dir, "fr", { a: "A" });
    const manager = managerFor(
      new JsonFileLocalizationLoader(join(dir, "locales", "{culture}.json")),
    );
    await manager.setCulture("fr-CA");
    assert.equal(manager.t("a"), "A");
  });
});

test("JsonFileLocalizationLoader: a file that is not JSON is a LocalizationLoadError", async () => {
  await withDir(async (dir) => {
    await writeResource(dir, "en", "{ nope");
    const loader = new JsonFileLocalizationLoader(
      join(dir, "locales", "{culture}.json"),
    );
    await assert.rejects(loader.load("en"), (error: unknown) => {
      assert.ok(error instanceof LocalizationLoadError);
      assert.equal(error.notFound, false);
      assert.match(error.message, /: the file is not JSON \(/);
      return true;
    });
  });
});

test("JsonFileLocalizationLoader accepts a file starting with a byte order mark", async () => {
  await withDir(async (dir) => {
    await writeResource(dir, "en", '\uFEFF{"a":"A"}');
    const loader = new JsonFileLocalizationLoader(
      join(dir, "locales", "{culture}.json"),
    );
    assert.deepEqual(await loader.load("en"), { a: "A" });
  });
});

test("JsonFileLocalizationLoader: a resource that is not an object of strings names the key and the path", async () => {
  await withDir(async (dir) => {
    await writeResource(dir, "en", { menu: { items: 3 } });
    const manager = managerFor(
      new JsonFileLocalizationLoader(join(dir, "locales", "{culture}.json")),
    );
    await assert.rejects(manager.setCulture("en"), (error: unknown) => {
      assert.ok(error instanceof LocalizationResourceError);
      assert.equal(error.key, "menu.items");
      assert.equal(error.address, join(dir, "locales", "en.json"));
      return true;
    });
  });
});

test("JsonFileLocalizationLoader never reads outside the template for a bad culture", async () => {
  await withDir(async (dir) => {
    // A JSON file one level up, which "../secret" would reach.
    await writeFile(join(dir, "secret.json"), JSON.stringify({ a: "secret" }));
    const loader = new JsonFileLocalizationLoader(
      join(dir, "locales", "{culture}.json"),
    );
    for (
      const bad of ["../secret", "..\\secret", "en/../../secret", "/etc/passwd"]
    ) {
      await assert.rejects(loader.load(bad), InvalidCultureError, bad);
      await assert.rejects(
        managerFor(loader).setCulture(bad),
        InvalidCultureError,
        bad,
      );
    }
  });
});

test(
  "JsonFileLocalizationLoader refuses a FIFO at once instead of waiting for a writer",
  {
    skip: process.platform === "win32",
  },
  async () => {
    await withDir(async (dir) => {
      const path = join(dir, "locales", "fr.json");
      execFileSync("mkfifo", [path]);
      const loader = new JsonFileLocalizationLoader(
        join(dir, "locales", "{culture}.json"),
      );
      await assert.rejects(loader.load("fr"), (error: unknown) => {
        assert.ok(error instanceof LocalizationLoadError);
        assert.equal(
          error.message,
          `Failed to load translations for culture "fr" from ${path}: not a regular file (a FIFO); name a JSON file`,
        );
        return true;
      });
    });
  },
);
