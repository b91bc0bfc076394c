// Internal: how the AnalyticsManager runs one operation on all of its
// providers at once: flush() and dispose() bounded by one signal (a provider
// still busy at the deadline is reported and no longer waited for), the
// worst of their health checks, and the sum of their flush counts.
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import type { AnalyticsProviderOperation } from "./analytics_errors.ts";
import { secretMasker } from "./_mask.ts";
import type { HealthCheckResult, HealthStatus } from "../platform/mod.ts";
import { MAX_TIMER_MS } from "../internal/delivery/backoff.ts";

/** Reports a provider's failure in an operation. */
export type ProviderReport = (
  provider: IAnalyticsProvider,
  operation: AnalyticsProviderOperation,
  error: unknown,
) => void;

const GAVE_UP = Symbol("gave up");

const RANK: Readonly<Record<HealthStatus, number>> = {
  healthy: 0,
  degraded: 1,
  unhealthy: 2,
};

const MASK_TEXT = secretMasker([]);

/** The provider's name, else its class's name. */
export function providerName(provider: IAnalyticsProvider): string {
  return provider.name ??
    (provider as { constructor?: { name?: string } }).constructor?.name ??
    "provider";
}

/**
 * Runs flush or dispose on every provider in parallel. With a signal, a
 * provider still busy when it fires (plus one task, so that the built-in
 * providers, which resolve on the signal, are seen to) is reported and no
 * longer waited for; a provider that fails is reported.
 */
export function settleAll(
  providers: readonly IAnalyticsProvider[],
  operation: "flush" | "dispose",
  signal: AbortSignal | undefined,
  report: ProviderReport,
): Promise<(AnalyticsFlushResult | void)[]> {
  const running = providers.map(async (provider) => {
    try {
      return signal === undefined
        ? await provider[operation]()
        : await provider[operation]({ signal });
    } catch (error) {
      report(provider, operation, error);
    }
  });
  if (signal === undefined) return Promise.all(running);
  let stop!: () => void;
  const stopped = new Promise<typeof GAVE_UP>((resolve) => {
    // Ref'd on purpose: the caller awaits this answer.
    stop = () => {
      setTimeout(() => resolve(GAVE_UP), 0);
    };
  });
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  // The deadline's timer is unref'd; the caller awaits the answer, so keep
  // the process alive until it comes.
  const keepAlive = setTimeout(() => {}, MAX_TIMER_MS);
  return Promise.all(running.map(async (promise, index) => {
    const result = await Promise.race([promise, stopped]);
    if (result !== GAVE_UP) return result;
    report(providers[index], operation, signal.reason);
    return undefined;
  })).finally(() => {
    clearTimeout(keepAlive);
    signal.removeEventListener("abort", stop);
  });
}

/**
 * The worst state of the providers that have a `checkHealth()` method
 * (`"healthy"` when none has), with each one's result under its name; a
 * check that throws counts as `"unhealthy"`.
 */
export async function worstHealth(
  all: readonly IAnalyticsProvider[],
  signal: AbortSignal | undefined,
): Promise<HealthCheckResult> {
  const checked = all.filter((provider) =>
    typeof provider.checkHealth === "function"
  );
  const results = await Promise.all(checked.map(async (provider) => {
    try {
      return await provider.checkHealth!(signal);
    } catch (error) {
      return {
        status: "unhealthy",
        detail: `checkHealth failed: ${MASK_TEXT(describe(error))}`,
      } as HealthCheckResult;
    }
  }));
  const providers: Record<string, HealthCheckResult> = {};
  let status: HealthStatus = "healthy";
  results.forEach((result, index) => {
    const base = providerName(checked[index]);
    let name = base;
    for (let n = 2; name in providers; n++) name = `${base} #${n}`;
    providers[name] = result;
    if (RANK[result.status] > RANK[status]) status = result.status;
  });
  return { status, detail: { providers } };
}

/** The delivered and dropped counts summed over the results that have them. */
export function sum(
  results: (AnalyticsFlushResult | void)[],
): AnalyticsFlushResult {
  let delivered = 0;
  let dropped = 0;
  for (const result of results) {
    if (result === undefined || result === null) continue;
    delivered += Number(result.delivered) || 0;
    dropped += Number(result.dropped) || 0;
  }
  return { delivered, dropped };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
