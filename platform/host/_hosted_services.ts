// The hosted services of one application: those added with
// addHostedService and those registered with { hosted: true }, in the order
// they start; the ones started, which shutdown stops newest first; and the
// bounded stop of one that finished starting after stop() began. Not
// re-exported.
import { deadlineSignal } from "../../core/mod.ts";
import { abandonAfter, messageOf } from "./_application_support.ts";
import type { ApplicationLogger } from "./application_logger.ts";
import type { HostedService } from "./application_options.ts";
import { ApplicationStartError } from "./application_start_error.ts";
import type { ServiceLocator } from "../locator/service_locator.ts";

/** A hosted service with the name used in logs and the shutdown report. */
export interface HostedEntry {
  name: string;
  service: HostedService;
}

function isHostedService(service: unknown): service is HostedService {
  const candidate = service as Partial<HostedService> | null;
  return candidate !== null && typeof candidate === "object" &&
    typeof candidate.start === "function" &&
    typeof candidate.stop === "function";
}

/** The hosted services to start, and those started. */
export class HostedServices {
  // In the order they start; start-up walks it while it may still grow.
  readonly toStart: HostedEntry[] = [];
  #started: HostedEntry[] = [];

  /**
   * Adds a service given to addHostedService.
   *
   * @throws {TypeError} When it has no `start` or `stop` method.
   */
  static check(name: string, service: HostedService): void {
    if (!isHostedService(service)) {
      throw new TypeError(
        `addHostedService('${name}'): a hosted service needs start(signal) and stop() methods`,
      );
    }
  }

  /**
   * Adds the services registered with `{ hosted: true }` (created already)
   * that are not added yet.
   *
   * @throws {ApplicationStartError} Naming one that is no hosted service.
   */
  addRegistered(services: ServiceLocator<object>): void {
    for (const [name, options] of services.eagerServices()) {
      if (options.hosted !== true) continue;
      const service = services.get(name as never) as HostedService;
      if (!isHostedService(service)) {
        throw new ApplicationStartError(
          4,
          new TypeError(
            `service '${name}' is registered as hosted but has no start(signal) and stop() methods`,
          ),
          name,
        );
      }
      if (!this.toStart.some((entry) => entry.service === service)) {
        this.toStart.push({ name, service });
      }
    }
  }

  /**
   * Starts one service.
   *
   * @param starting Whether start-up is still running when it fails (its
   * error is then an {@linkcode ApplicationStartError}).
   * @throws {Error} Naming the service, its error as the `cause`.
   */
  async start(
    entry: HostedEntry,
    signal: AbortSignal,
    starting: () => boolean,
  ): Promise<void> {
    try {
      await entry.service.start(signal);
    } catch (error) {
      const cause = new Error(
        `hosted service '${entry.name}' could not start: ${messageOf(error)}`,
        { cause: error },
      );
      if (starting()) throw new ApplicationStartError(4, cause, entry.name);
      throw cause;
    }
  }

  /** Remembers a started service, for shutdown. */
  started(entry: HostedEntry): void {
    this.#started.push(entry);
  }

  /** Hands over the started services, oldest first, and forgets them. */
  takeStarted(): HostedEntry[] {
    return this.#started.splice(0);
  }

  /**
   * Stops a service that finished starting after stop() began, within the
   * shutdown deadline; a failure is logged.
   */
  async stopLate(
    entry: HostedEntry,
    timeout: number,
    logger: () => ApplicationLogger,
  ): Promise<void> {
    const signal = deadlineSignal({ timeout })!;
    await abandonAfter(
      Promise.resolve().then(() => entry.service.stop(signal)),
      signal,
    ).catch((error) =>
      logger().error(
        `Hosted service '${entry.name}' failed to stop: ${messageOf(error)}`,
        { error },
      )
    );
  }
}
