// A server that answers "not now" (MASTERDOWN from a replica cut off from its
// primary, CLUSTERDOWN while a cluster fails over, LOADING while a restart
// reads its data back) has not taken the change. Such a reply must count as
// an outage, so the change is held back and re-sent, not reported and lost.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RemoteStoreCacheProvider } from "@vendor/kit-platform-caching";
import { startOutageProxy } from "./_outage_proxy.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";

test(
  "a write answered MASTERDOWN is held back and lands once the server takes writes again",
  { skip: redisSkip, timeout: 30_000 },
  async () => {
    await using server = await startRedisServer();
    const admin = await server.client();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      keyPrefix: "mdown:",
      commandTimeout: 500,
      reconnectDelay: 20,
      maxReconnectDelay: 100,
      onError: () => {},
    });
    try {
      assert.equal(await provider.connect(), true);
      await provider.set("k", { value: "before", storedAt: 0 });
      // A replica of a primary that does not exist, refusing stale data and
      // accepting writes past the read-only check: every data command is
      // answered MASTERDOWN.
      await admin.configSet({
        "replica-serve-stale-data": "no",
        "replica-read-only": "no",
      });
      await admin.sendCommand(["REPLICAOF", "127.0.0.1", "9"]);
      await assert.rejects(admin.get("mdown:k"), /MASTERDOWN/);

      await provider.set("k", { value: "written while refused", storedAt: 1 });
      assert.equal(
        provider.recoveryStats.pending,
        1,
        "the refused write is held back",
      );

      await admin.sendCommand(["REPLICAOF", "NO", "ONE"]);
      // Re-sent over the older entry (a re-sent write never re-creates a
      // key that is gone: another instance may have deleted it).
      await waitFor(
        async () =>
          /"written while refused"/.test(
            (await admin.get("mdown:k")) ?? "",
          ),
        "the held-back write to land over the older entry",
      );
      // The write reaches Redis a moment before the provider hears the reply
      // and counts it as re-sent.
      await waitFor(
        () => provider.recoveryStats.pending === 0,
        "the provider to count the re-sent write",
      );
      assert.equal(provider.recoveryStats.resent, 1);
    } finally {
      await provider.dispose();
      await admin.close();
    }
  },
);

test(
  "a delete held back during an outage is stamped on the provider's clock, so its re-send spares a newer entry written meanwhile on that clock",
  { skip: redisSkip, timeout: 30_000 },
  async () => {
    await using server = await startRedisServer();
    await using proxy = await startOutageProxy(server);
    const admin = await server.client();
    // A clock far from the system's, as a FakeClock in a test is.
    let now = 1_000;
    const options = {
      keyPrefix: "clock:",
      commandTimeout: 300,
      reconnectDelay: 20,
      maxReconnectDelay: 100,
      onError: () => {},
      clock: () => now,
    };
    const cutOff = new RemoteStoreCacheProvider({
      host: proxy.host,
      port: proxy.port,
      ...options,
    });
    const other = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      ...options,
    });
    try {
      await cutOff.set("k", { value: "first", storedAt: now });
      proxy.cut();
      now = 2_000;
      await cutOff.delete("k");
      assert.equal(cutOff.recoveryStats.pending, 1, "the delete is held back");
      now = 3_000;
      await other.set("k", { value: "newer", storedAt: now });
      proxy.heal();
      await waitFor(
        () => cutOff.isConnected && cutOff.recoveryStats.pending === 0,
        "the cut-off provider to re-send its delete",
      );
      assert.match(
        (await admin.get("clock:k")) ?? "(deleted)",
        /"newer"/,
        "the re-sent delete (at 2000) spares the entry stored at 3000",
      );
    } finally {
      await Promise.all([cutOff.dispose(), other.dispose()]);
      await admin.close();
    }
  },
);
