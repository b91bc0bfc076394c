/**
 * Caching package of Kit (`@vendor/kit-platform-caching`): a
 * {@linkcode CacheManager} with policies (fresh, early refresh, stale
 * serving, fail-safe, single flight), named areas and counters, over a
 * provider: {@linkcode MemoryCacheProvider} (lru-cache),
 * {@linkcode RemoteStoreCacheProvider} (Redis through node-redis) or
 * {@linkcode TieredCacheProvider} (memory in front of Redis, kept coherent
 * across instances by Redis pub/sub). All times are milliseconds.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, CachePolicy, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(
 *   new MemoryCacheProvider({ maxSize: 1000, defaultTtl: 300_000, cleanupInterval: 60_000 }),
 * );
 * cache.setPolicy("users", new CachePolicy({ ttl: 900_000, refreshThreshold: 0.8, maxStale: 300_000 }));
 * const user = await cache.area("users").getOrSet("1", async () => ({ id: 1, name: "Ada" }));
 * console.log(user.name);
 * await cache.dispose();
 * ```
 *
 * @module
 */
export type * from "./cache.ts";
export * from "./cache_manager.ts";
export * from "./cache_policy.ts";
export type * from "./cache_provider.ts";
export type * from "./cache_stats.ts";
export type * from "./cache_invalidation.ts";
export * from "./memory_cache_provider.ts";
export * from "./redis/remote_store_cache_provider.ts";
export * from "./tiered_cache_provider.ts";
export * from "./cache_error.ts";
export * from "./cache_factory_error.ts";
export * from "./cache_policy_not_found_error.ts";
export * from "./cache_serialization_error.ts";
export * from "./cache_store_error.ts";
export * from "./cache_store_recovered.ts";
export * from "./cache_store_unavailable_error.ts";
export * from "./cache_value_error.ts";
export * from "./cache_setting_error.ts";
export type { DisposeOptions } from "../core/mod.ts";
export type { HealthCheckResult, HealthStatus } from "../platform/mod.ts";
