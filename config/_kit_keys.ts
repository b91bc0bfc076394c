// The optional keys Kit's own modules read (the host's server settings, the
// Redis cache, localization, analytics). diagnose() counts them as known
// whatever schema the application uses, so that a variable one underscore
// short of one (`APP_SERVER_PORT`) is reported with the right name
// (`APP_SERVER__PORT`) instead of as a variable nothing reads. The required
// keys and the rest of Kit's sections come from `appConfigSchema` and the
// standard variables. The config module does not import the others, so the
// list is kept here by hand; tests/config/near_miss_test.ts checks a sample.

/** Keys read by platform, caching, localization and analytics. */
export const KIT_OPTIONAL_KEYS: readonly string[] = Object.freeze([
  "server:port",
  "server:host",
  "server:drainDelay",
  "server:maxBodySize",
  "server:headersTimeout",
  "server:idleTimeout",
  "host:shutdownTimeout",
  "cache:redis:host",
  "cache:redis:port",
  "cache:redis:password",
  "cache:redis:database",
  "cache:redis:keyPrefix",
  "localization:defaultCulture",
  "localization:fallbackCulture",
  "localization:resourceUrl",
  "localization:resourcePath",
  "localization:timeout",
  "localization:cache:maxSize",
  "localization:cache:ttl",
  "analytics:endpoint",
  "analytics:apiKey",
  "analytics:batchSize",
  "analytics:flushInterval",
  "analytics:maxQueueSize",
  "analytics:trackingId",
  "analytics:apiSecret",
  "analytics:ga4Endpoint",
  "analytics:enableEnhancedEcommerce",
  "analytics:anonymizeIp",
  "logging:filePath",
  "logging:remoteEndpoint",
  "logging:apiKey",
  "telemetry:serviceName",
]);
