import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CamelCaseKeyResolver,
  IdentityKeyResolver,
} from "../../localization/mod.ts";

test("CamelCaseKeyResolver converts each dotted segment to camelCase", () => {
  const resolver = new CamelCaseKeyResolver();
  assert.equal(resolver.resolve("Home.Page-Title"), "home.pageTitle");
  assert.equal(resolver.resolve("CHECKOUT.TOTAL_PRICE"), "checkout.totalPrice");
  assert.equal(
    resolver.resolve("user_profile.First Name"),
    "userProfile.firstName",
  );
  assert.equal(resolver.resolve("home.pageTitle"), "home.pageTitle");
  assert.equal(resolver.resolve("a.b.c-d.E"), "a.b.cD.e");
});

test("CamelCaseKeyResolver returns the same result from its memo on repeated keys", () => {
  const resolver = new CamelCaseKeyResolver();
  const first = resolver.resolve("Menu.Sign-Out");
  for (let i = 0; i < 20_000; i++) resolver.resolve(`Key.N${i}`);
  assert.equal(resolver.resolve("Menu.Sign-Out"), first);
  assert.equal(first, "menu.signOut");
});

test("IdentityKeyResolver returns keys unchanged", () => {
  const resolver = new IdentityKeyResolver();
  assert.equal(resolver.resolve("Home.Page-Title"), "Home.Page-Title");
});
