import { test } from "node:test";
import assert from "node:assert/strict";
import { pageAddress } from "../../internal/page_address.ts";

// Sets `globalThis.location` for one call, as a page would have it.
function withLocation<T>(descriptor: PropertyDescriptor, run: () => T): T {
  const previous = Object.getOwnPropertyDescriptor(globalThis, "location");
  Object.defineProperty(globalThis, "location", {
    ...descriptor,
    configurable: true,
  });
  try {
    return run();
  } finally {
    if (previous) Object.defineProperty(globalThis, "location", previous);
    else delete (globalThis as { location?: unknown }).location;
  }
}

test("pageAddress() is undefined where there is no page", () => {
  assert.equal(pageAddress(), undefined);
});

test("pageAddress() returns location.href in a page", () => {
  assert.equal(
    withLocation(
      { value: { href: "https://app.example/shop/" } },
      pageAddress,
    ),
    "https://app.example/shop/",
  );
});

test("pageAddress() is undefined when location throws or has no string href", () => {
  assert.equal(
    withLocation({
      get() {
        throw new ReferenceError("no --location");
      },
    }, pageAddress),
    undefined,
  );
  assert.equal(withLocation({ value: { href: 42 } }, pageAddress), undefined);
});
