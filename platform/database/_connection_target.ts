// database:connectionString read into what an engine needs: a server's
// address for pg (postgres:// or postgresql://), or the embedded engine's
// folder (pglite:<folder>, or pglite:memory for none). A value that is
// neither fails here, naming the key and where it came from, quoting the
// value masked and bounded.
import { maskSecretText } from "../../core/mod.ts";
import { quoteValue } from "../../internal/quote_value.ts";
import { DatabaseConfigurationError } from "./database_configuration_error.ts";

/** Where the statements go. */
export type ConnectionTarget =
  | {
    readonly kind: "postgresql";
    /** The connection string as given, for the driver. */
    readonly connectionString: string;
    /** The connection string as messages show it (password masked). */
    readonly address: string;
    /** `server.address`. */
    readonly host: string;
    /** `server.port`. */
    readonly port: number;
    /** The database's name (`db.namespace`), when the URL gives one. */
    readonly database: string | undefined;
  }
  | {
    readonly kind: "pglite";
    /** The folder, or `undefined` to keep the data in memory. */
    readonly dataDir: string | undefined;
    /** `pglite:memory` or `pglite:<folder>`. */
    readonly address: string;
  };

/** A value set for the connection string, and where it came from. */
export interface ConnectionStringSetting {
  readonly value: unknown;
  readonly source: string;
  /** Read from a `<NAME>_FILE` variable's file: never printed. */
  readonly fromFile?: boolean;
}

const USAGE =
  "use postgres://user:password@host:5432/database for a PostgreSQL server, " +
  "or pglite:memory / pglite:<folder> for the embedded engine";

/**
 * Reads a connection string.
 *
 * @param found The value set, and where it came from.
 * @param key The key it was read from (for the message).
 * @throws {DatabaseConfigurationError} When it is neither form.
 */
export function parseConnectionString(
  found: ConnectionStringSetting,
  key: string,
): ConnectionTarget {
  const { value, source } = found;
  const fail = (problem: string): never => {
    throw new DatabaseConfigurationError(
      key,
      source,
      `${key} ${problem}: ${
        quoteValue(value, { secret: found.fromFile === true })
      } (from ${source}); ${USAGE}`,
    );
  };
  if (typeof value !== "string" || value.trim() === "") {
    return fail("must be a connection string");
  }
  const text = value.trim();
  if (/^pglite:/i.test(text)) {
    const rest = text.slice("pglite:".length);
    if (rest === "") return fail("names no folder for the embedded engine");
    const memory = rest.toLowerCase() === "memory";
    return {
      kind: "pglite",
      dataDir: memory ? undefined : rest,
      address: memory ? "pglite:memory" : `pglite:${rest}`,
    };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail("is not a URL");
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme !== "postgres:" && scheme !== "postgresql:") {
    return fail(`uses the scheme '${scheme}', which Kit's database cannot use`);
  }
  // A socket folder (postgres:///app?host=/run/postgresql) names no host.
  const host = url.hostname !== ""
    ? url.hostname.replace(/^\[|\]$/g, "")
    : url.searchParams.get("host") ?? "localhost";
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  return {
    kind: "postgresql",
    connectionString: text,
    address: maskSecretText(text),
    host,
    port: url.port === "" ? 5432 : Number(url.port),
    database: database === "" ? undefined : database,
  };
}
