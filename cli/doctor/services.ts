// Service checks (`--connect`): Redis from the configuration answers PING
// with its password, the API base address answers, the localization
// address of the configured culture returns a resource, and the remote log
// and analytics endpoints accept an empty batch. Each waits at most the
// timeout; secrets never reach the output.
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";
import { readBodyText } from "../../internal/bounded_body.ts";
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import type { ConfigurationManager } from "../../config/mod.ts";
import { SERVICES, variableAndKey } from "./declared.ts";
import { checkRedis } from "./redis.ts";
import { type Check, rememberSecret } from "./report.ts";
import { from, text } from "./values.ts";

const GROUP = "Services" as const;

/** The service checks; with `connect` false, one line saying how to run them. */
export async function checkServices(
  config: ConfigurationManager | undefined,
  connect: boolean,
  timeout: number,
): Promise<Check[]> {
  if (!connect) {
    return [{
      group: GROUP,
      name: "services",
      status: "skip",
      message:
        "not contacted; run with --connect to reach Redis, the API, the localization address and the log and analytics endpoints",
    }];
  }
  if (config === undefined) {
    return [{
      group: GROUP,
      name: "services",
      status: "skip",
      message: "the configuration did not load, so the addresses are unknown",
    }];
  }
  return await Promise.all([
    checkRedis(config, timeout),
    checkApi(config, timeout),
    checkLocalization(config, timeout),
    checkRemoteLog(config, timeout),
    checkAnalytics(config, timeout),
  ]);
}

// Largest answer read (a localization resource); the other checks need
// only the status.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** An answer larger than the doctor reads. */
class TooLargeError extends Error {
  constructor() {
    super(`the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`);
    this.name = "TooLargeError";
  }
}

async function request(
  url: string,
  init: RequestInit,
  timeout: number,
  readBody = false,
): Promise<{ status: number; statusText: string; body: string }> {
  const response = await fetch(url, {
    ...init,
    signal: AbortSignal.timeout(timeout),
  });
  let body = "";
  if (readBody) {
    body = await readBodyText(response, {
      limit: MAX_BODY_BYTES,
      url,
      tooLarge: () => new TooLargeError(),
    });
  } else {
    await response.body?.cancel().catch(() => {});
  }
  return { status: response.status, statusText: response.statusText, body };
}

function unreachable(
  name: string,
  url: string,
  key: string,
  error: unknown,
  timeout: number,
): Check {
  return {
    group: GROUP,
    name,
    status: "fail",
    message: `${url} (${key}) did not answer (timeout ${timeout} ms): ${
      describeNetworkError(error)
    }`,
    advice: `start the service, or set ${key} to where it runs`,
  };
}

async function checkApi(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> {
  const name = "API";
  const url = text(config, SERVICES.apiBaseUrl.key);
  if (url === undefined) {
    return {
      group: GROUP,
      name,
      status: "skip",
      message:
        `${SERVICES.apiBaseUrl.key} (${SERVICES.apiBaseUrl.variable}) is not set`,
    };
  }
  try {
    const response = await request(url, { method: "GET" }, timeout);
    return response.status < 500
      ? {
        group: GROUP,
        name,
        status: "pass",
        message: `${url} answered ${response.status}`,
      }
      : {
        group: GROUP,
        name,
        status: "fail",
        message: `${url} answered ${response.status} ${response.statusText}`,
        advice: "the API runs but fails: check its logs",
      };
  } catch (error) {
    return unreachable(
      name,
      url,
      from(config, SERVICES.apiBaseUrl.key),
      error,
      timeout,
    );
  }
}

async function checkLocalization(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> {
  const name = "localization";
  const template = text(config, SERVICES.resourceUrl.key);
  if (template === undefined) {
    return {
      group: GROUP,
      name,
      status: "skip",
      message: `${SERVICES.resourceUrl.key} is not set`,
    };
  }
  const culture = text(config, SERVICES.defaultCulture.key) ??
    String(SERVICES.defaultCulture.declaration.default);
  let url: string;
  try {
    url = new URL(
      template.replaceAll("{culture}", encodeURIComponent(culture)),
      text(config, SERVICES.apiBaseUrl.key),
    ).href;
  } catch {
    return {
      group: GROUP,
      name,
      status: "fail",
      message: `${
        from(config, SERVICES.resourceUrl.key)
      } is not an address: ${template}`,
      advice:
        `set ${SERVICES.resourceUrl.key} to an absolute address with {culture} (https://host/api/localization/{culture}.json)`,
    };
  }
  try {
    const response = await request(
      url,
      {
        headers: { accept: "application/json" },
      },
      timeout,
      true,
    );
    if (response.status !== 200) {
      return {
        group: GROUP,
        name,
        status: "fail",
        message: `${url} (culture ${culture}) answered ${response.status}`,
        advice: response.status === 404
          ? `publish the ${culture} translations at that address, or set ${SERVICES.defaultCulture.key} to a culture that has them`
          : "check the localization server's log",
      };
    }
    let resource: unknown;
    try {
      resource = JSON.parse(response.body);
    } catch {
      resource = undefined;
    }
    const ok = typeof resource === "object" && resource !== null &&
      !Array.isArray(resource);
    return ok
      ? {
        group: GROUP,
        name,
        status: "pass",
        message: `${url} (culture ${culture}) returned a resource of ${
          Object.keys(resource as object).length
        } top-level keys`,
      }
      : {
        group: GROUP,
        name,
        status: "fail",
        message: `${url} (culture ${culture}) did not return a JSON object`,
        advice: "serve the translations as one JSON object per culture",
      };
  } catch (error) {
    if (error instanceof TooLargeError) {
      return {
        group: GROUP,
        name,
        status: "fail",
        message: `${url} (culture ${culture}): ${error.message}`,
        advice:
          "check that the address serves the translations of one culture as one JSON object",
      };
    }
    return unreachable(
      name,
      url,
      from(config, SERVICES.resourceUrl.key),
      error,
      timeout,
    );
  }
}

// POSTs an empty batch: the endpoint checks the key and stores nothing.
async function probe(
  name: string,
  url: string,
  key: string,
  body: string,
  apiKey: string | undefined,
  keyName: string,
  timeout: number,
): Promise<Check> {
  rememberSecret(apiKey);
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  if (apiKey !== undefined) headers["x-api-key"] = apiKey;
  try {
    const response = await request(url, {
      method: "POST",
      headers,
      body,
    }, timeout);
    if (response.status >= 200 && response.status < 300) {
      return {
        group: GROUP,
        name,
        status: "pass",
        message: `${url} accepted an empty batch (${response.status})`,
      };
    }
    return {
      group: GROUP,
      name,
      status: "fail",
      message:
        `${url} answered ${response.status} ${response.statusText} to an empty batch`,
      advice: response.status === 401 || response.status === 403
        ? `the endpoint refuses the key: set ${keyName} to a key it accepts${
          apiKey === undefined ? " (none is set)" : ""
        }`
        : response.status === 404
        ? `the address is wrong: check ${key}`
        : "check the endpoint's log",
    };
  } catch (error) {
    return unreachable(name, url, key, error, timeout);
  }
}

// An OTLP variable from the configuration, else from the process (as
// RemoteLogProvider reads them): its value and where it came from.
function otlpVariable(
  config: ConfigurationManager,
  name: string,
): { value: string; key: string } | undefined {
  const configured = text(config, name);
  if (configured !== undefined) {
    return { value: configured, key: from(config, name) };
  }
  const value = readEnvironmentVariable(name)?.trim();
  return value ? { value, key: `env ${name}` } : undefined;
}

// The endpoint a remote provider with `format: "otlp"` and no `endpoint`
// posts to: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as is, else
// OTEL_EXPORTER_OTLP_ENDPOINT followed by /v1/logs.
function otlpEndpoint(
  config: ConfigurationManager,
): { url?: string; key: string } {
  const logs = otlpVariable(config, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT");
  if (logs !== undefined) return { url: logs.value, key: logs.key };
  const base = otlpVariable(config, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (base !== undefined) {
    return {
      url: base.value.replace(/\/+$/, "") + "/v1/logs",
      key: base.key,
    };
  }
  return {
    url: undefined,
    key: "OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
  };
}

function remoteLogEndpoint(
  config: ConfigurationManager,
): { url?: string; apiKey?: string; key: string; otlp: boolean } {
  const providers = config.getValue<unknown>(SERVICES.logProviders.key, []);
  if (Array.isArray(providers)) {
    for (const [index, provider] of providers.entries()) {
      const entry = provider as { type?: unknown; options?: unknown };
      if (entry?.type !== "remote") continue;
      const options = (entry.options ?? {}) as Record<string, unknown>;
      const otlp = options.format === "otlp";
      const apiKey = typeof options.apiKey === "string"
        ? options.apiKey
        : text(config, SERVICES.logApiKey.key);
      if (typeof options.endpoint === "string") {
        return {
          url: options.endpoint,
          apiKey,
          key: `${SERVICES.logProviders.key}:${index}:options:endpoint`,
          otlp,
        };
      }
      if (otlp) return { ...otlpEndpoint(config), apiKey, otlp };
      return {
        url: text(config, SERVICES.remoteEndpoint.key),
        apiKey,
        key: from(config, SERVICES.remoteEndpoint.key),
        otlp,
      };
    }
  }
  return {
    url: text(config, SERVICES.remoteEndpoint.key),
    apiKey: text(config, SERVICES.logApiKey.key),
    key: from(config, SERVICES.remoteEndpoint.key),
    otlp: false,
  };
}

function checkRemoteLog(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> | Check {
  const { url, apiKey, key, otlp } = remoteLogEndpoint(config);
  if (url === undefined) {
    return {
      group: GROUP,
      name: "remote log",
      status: "skip",
      message: otlp
        ? "the remote log provider (format otlp) has no endpoint and neither OTEL_EXPORTER_OTLP_LOGS_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT is set"
        : `no remote log provider and no ${SERVICES.remoteEndpoint.key} (${SERVICES.remoteEndpoint.variable})`,
    };
  }
  return probe(
    "remote log",
    url,
    key,
    // An empty batch in the provider's format (an empty OTLP export
    // request for a collector).
    otlp ? '{"resourceLogs":[]}' : '{"entries":[]}',
    apiKey,
    variableAndKey(SERVICES.logApiKey),
    timeout,
  );
}

function checkAnalytics(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> | Check {
  const url = text(config, SERVICES.analyticsEndpoint.key);
  if (url === undefined) {
    return {
      group: GROUP,
      name: "analytics",
      status: "skip",
      message: `${SERVICES.analyticsEndpoint.key} is not set`,
    };
  }
  return probe(
    "analytics",
    url,
    from(config, SERVICES.analyticsEndpoint.key),
    '{"events":[]}',
    text(config, SERVICES.analyticsApiKey.key),
    variableAndKey(SERVICES.analyticsApiKey),
    timeout,
  );
}
