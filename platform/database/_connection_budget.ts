// The connection budget: every instance's pool counts against the server's
// max_connections, less the connections it keeps for superusers (and, from
// PostgreSQL 16, for roles with pg_use_reserved_connections). One pool
// larger than that alone can never fill; say so at start-up rather than when
// the server refuses the connection under load.
import type { EngineResult } from "./_engine.ts";

const BUDGET =
  `SELECT current_setting('max_connections')::int AS max_connections,
  current_setting('superuser_reserved_connections')::int AS superuser_reserved,
  coalesce(current_setting('reserved_connections', true), '0')::int AS reserved`;

/**
 * Asks the server for its limits; warns when `poolSize` is more than it
 * accepts.
 *
 * @throws What the query threw (the server cannot be reached).
 */
export async function checkConnectionBudget(
  query: (text: string) => Promise<EngineResult>,
  poolSize: number,
  warn: (message: string, properties: Record<string, unknown>) => void,
): Promise<void> {
  const { rows } = await query(BUDGET);
  const row = rows[0] ?? {};
  const max = Number(row.max_connections);
  const reserved = Number(row.superuser_reserved) + Number(row.reserved);
  if (!Number.isFinite(max) || !Number.isFinite(reserved)) return;
  const available = max - reserved;
  if (poolSize <= available) return;
  warn(
    `database:poolSize is ${poolSize}, more than the server accepts: max_connections ${max} less ${reserved} reserved = ${available}. ` +
      "Every instance's pool counts against it (instances × poolSize must stay within it): lower database:poolSize, " +
      "raise max_connections, or put a pooler such as PgBouncer in front (then compare with its limits instead)",
    { poolSize, maxConnections: max, reserved, available },
  );
}
