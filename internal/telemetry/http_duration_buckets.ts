/**
 * The bucket boundaries, in seconds, that OpenTelemetry's HTTP semantic
 * conventions advise for `http.server.request.duration` and
 * `http.client.request.duration`; Kit's host and HTTP client both use them.
 *
 * @example Advice for a duration histogram
 * ```ts
 * import { HTTP_DURATION_BUCKETS } from "./http_duration_buckets.ts";
 *
 * const advice = { explicitBucketBoundaries: [...HTTP_DURATION_BUCKETS] };
 * console.log(advice.explicitBucketBoundaries.length); // 14
 * ```
 */
export const HTTP_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
]);
