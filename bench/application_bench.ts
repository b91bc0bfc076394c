// Start-up of an application with every module configured (configuration
// from memory with a schema-free validation, logging, an HTTP client, a
// memory cache, localization from a map, analytics), to start() resolved and
// each service created, then stopped: by the application host, and wired by
// hand with the same calls (the floor). The difference is what the host
// costs at start-up.
// Run: deno bench -A --config deno.dev.json bench/application_bench.ts
import { Application, ServiceLocator } from "../platform/mod.ts";
import { ConfigurationManager, MemoryProvider } from "../config/mod.ts";
import { type ILogProvider, LoggerManager } from "../logging/mod.ts";
import { HttpClient } from "../http/mod.ts";
import { CacheManager, MemoryCacheProvider } from "../caching/mod.ts";
import {
  DefaultCultureProvider,
  LocalizationManager,
  MapLocalizationProvider,
} from "../localization/mod.ts";
import { AnalyticsManager, CustomAnalyticsProvider } from "../analytics/mod.ts";

const values = new Map([
  ["api:baseUrl", "http://127.0.0.1:9/api"],
  ["api:timeout", "5000"],
  ["api:retryAttempts", "3"],
  ["logging:level", "info"],
  ["analytics:endpoint", "http://127.0.0.1:9/collect"],
  ["analytics:apiKey", "bench-key-0000"],
]);
const silent: ILogProvider = {
  isEnabled: () => true,
  log: () => Promise.resolve(),
};

async function configuration(): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  await config.addProvider(new MemoryProvider(values));
  await config.loadConfiguration();
  return config;
}
function platform(services: ServiceLocator, config: ConfigurationManager) {
  services.register("http", () => HttpClient.fromConfiguration(config), {
    eager: true,
  });
  services.register(
    "cache",
    () => new CacheManager(new MemoryCacheProvider({ maxSize: 1000 })),
    { eager: true },
  );
  services.register("localization", async () => {
    const manager = new LocalizationManager(
      new MapLocalizationProvider(
        new Map([["en", new Map([["hello", "Hello {0}"]])]]),
      ),
      new DefaultCultureProvider("en"),
      (key) => key,
    );
    await manager.setCulture("en");
    return manager;
  }, { eager: true });
  services.register(
    "analytics",
    () =>
      new AnalyticsManager().addProvider(
        CustomAnalyticsProvider.fromConfiguration(config),
      ),
    { eager: true },
  );
}

Deno.bench({
  name: "by hand: the same services created and disposed (floor)",
  group: "start-up",
  baseline: true,
  async fn() {
    const services = new ServiceLocator();
    const config = await configuration();
    services.registerInstance("config", config);
    const logging = new LoggerManager().configure({
      level: "info",
      providers: [silent],
    });
    platform(services, config);
    await services.createEagerServices();
    await services.dispose();
    await logging.dispose();
  },
});

Deno.bench({
  name: "Kit Application.start() then stop()",
  group: "start-up",
  async fn() {
    const app = await Application.start({
      configuration,
      logging: () =>
        new LoggerManager().configure({
          level: "warning",
          providers: [silent],
        }),
      platform,
    });
    await app.stop();
  },
});
