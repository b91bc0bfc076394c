// node-redis (and through it node:net), loaded with a dynamic import on the
// first connection, so that a browser bundle of caching/mod.ts never pulls it
// in. The npm build's `browser` condition uses _redis_driver_browser.ts.
import type * as Redis from "redis";

let driver: Promise<typeof Redis> | undefined;

/** The node-redis module, loaded once. */
export function loadRedisDriver(): Promise<typeof Redis> {
  driver ??= import("redis");
  return driver;
}
