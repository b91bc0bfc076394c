// RemoteStoreCacheProvider.clear(prefix): the keys under the prefix are
// walked with SCAN and removed batch by batch with UNLINK, never with KEYS or
// FLUSHDB. On a cluster every primary holds its own share of the keys, so
// each is walked, and a batch is split by slot (a node refuses a command
// whose keys span slots); a primary that is down is skipped (the clear is
// then held back for its slots) while the others are cleared.
import { TIMED_OUT } from "./_deadlines.ts";
import type { RedisNode } from "./_redis_link.ts";
import { keySlot } from "./_redis_slots.ts";
import {
  type StoreConnectionState,
  UNANSWERED,
} from "../outages/_store_connection_state.ts";

/**
 * Removes the keys matching `patterns` on every primary.
 *
 * @returns `false` when the store could not finish it.
 */
export async function clearKeys(
  link: StoreConnectionState,
  patterns: readonly string[],
): Promise<boolean> {
  const client = await link.commands();
  if (client === undefined) return false;
  let primaries: RedisNode[];
  try {
    // Bounded like a command: a cluster node being reached may never answer.
    const listed = await link.race(client.primaries());
    if (listed === TIMED_OUT) return link.timedOut("SCAN", false);
    primaries = listed;
  } catch (error) {
    link.failed("SCAN", undefined, error, undefined);
    return false;
  }
  const done = await Promise.all(
    primaries.map((primary) =>
      Promise.all(
        patterns.map((pattern) =>
          clearOn(link, primary, pattern, client.cluster)
        ),
      )
    ),
  );
  return done.every((each) => each.every(Boolean));
}

/** Answers `false` when the node could not finish it. */
async function clearOn(
  link: StoreConnectionState,
  primary: RedisNode,
  pattern: string,
  cluster: boolean,
): Promise<boolean> {
  const address = cluster ? primary.address : undefined;
  const send = (args: string[]) =>
    link.sendVia(primary.send, args, UNANSWERED, address);
  let cursor = "0";
  do {
    const reply = await send(
      ["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"],
    );
    if (reply === UNANSWERED) return false;
    if (!Array.isArray(reply)) return true;
    cursor = String(reply[0]);
    const keys = reply[1] as string[];
    if (keys.length === 0) continue;
    if (!cluster) {
      if ((await send(["UNLINK", ...keys])) === UNANSWERED) return false;
      continue;
    }
    // A cluster node refuses a command whose keys span slots.
    const bySlot = new Map<number, string[]>();
    for (const key of keys) {
      const slot = keySlot(key);
      const group = bySlot.get(slot);
      if (group === undefined) bySlot.set(slot, [key]);
      else group.push(key);
    }
    const removed = await Promise.all(
      [...bySlot.values()].map((group) => send(["UNLINK", ...group])),
    );
    if (removed.includes(UNANSWERED)) return false;
  } while (cursor !== "0");
  return true;
}
