// The localization cache driven by the test kit's FakeClock: translations
// loaded into a LocalizationCache given the clock expire after its ttl on
// that clock (an hour passes in milliseconds), setCulture() and forCulture()
// then load again, and the older `now` option keeps working.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DefaultCultureProvider,
  LocalizationCache,
  LocalizationManager,
} from "../../localization/mod.ts";
import { FakeClock } from "@vendor/kit-platform/testing";
import { ControlledProvider } from "./_helpers.ts";

const HOUR = 3_600_000;

function setup() {
  const clock = new FakeClock();
  const cache = new LocalizationCache({ ttl: HOUR, clock });
  const provider = new ControlledProvider({
    en: { title: "Welcome" },
    fr: { title: "Bienvenue" },
  });
  const manager = new LocalizationManager(
    provider,
    new DefaultCultureProvider("en"),
    undefined,
    cache,
  );
  return { clock, cache, provider, manager };
}

describe("LocalizationCache with a FakeClock", () => {
  it("an entry expires after the ttl on the clock, and stays readable as stale", async () => {
    const { clock, cache } = setup();
    cache.set("en", new Map([["a", "A"]]));
    await clock.advance(HOUR);
    assert.equal(cache.get("en")?.get("a"), "A");
    await clock.advance(1);
    assert.equal(cache.get("en"), undefined);
    assert.equal(cache.has("en"), false);
    assert.equal(cache.getStale("en")?.get("a"), "A");
  });

  it("setCulture() loads again once the cached culture expired", async () => {
    const { clock, provider, manager } = setup();
    await manager.setCulture("en");
    provider.texts.en = { title: "Welcome back" };
    await clock.advance(HOUR - 1);
    await manager.setCulture("en");
    assert.equal(manager.t("title"), "Welcome");
    assert.equal(provider.callsFor("en"), 1);
    await clock.advance(2);
    await manager.setCulture("en");
    assert.equal(manager.t("title"), "Welcome back");
    assert.equal(provider.callsFor("en"), 2);
  });

  it("forCulture() builds a new translator once the ttl passed on the clock", async () => {
    const { clock, provider, manager } = setup();
    const first = await manager.forCulture("fr");
    await clock.advance(HOUR - 1);
    assert.equal(await manager.forCulture("fr"), first);
    provider.texts.fr = { title: "Salut" };
    await clock.advance(2);
    const second = await manager.forCulture("fr");
    assert.notEqual(second, first);
    assert.equal(second.t("title"), "Salut");
  });

  it("refuses a clock that is not a Clock, and both clock and now", () => {
    assert.throws(
      () => new LocalizationCache({ clock: { now: () => 0 } as never }),
      {
        name: "TypeError",
        message:
          "LocalizationCache: clock must be a Clock (now, setTimeout, clearTimeout), got [object Object]",
      },
    );
    assert.throws(
      () => new LocalizationCache({ clock: new FakeClock(), now: () => 0 }),
      {
        name: "TypeError",
        message:
          "LocalizationCache: give either clock or now, not both (now is the older form of clock)",
      },
    );
  });
});
