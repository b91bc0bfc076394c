// The doctor's Redis check with --connect against a real Redis Cluster (six
// redis-server processes) and a real Sentinel set (primary, replica, three
// sentinels), plus a dead address (127.0.0.1:9, where nothing listens):
// every node is checked and cluster_state reported, Sentinel is asked for
// the primary and the primary for PING, each address that fails is named,
// and a host set beside a cluster or Sentinel is reported as ignored, as the
// cache provider ignores it.
import assert from "node:assert/strict";
import {
  after,
  before,
  describe,
  it as nodeIt,
  test as nodeTest,
} from "node:test";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  redisClusterSkip,
  type RedisTestCluster,
  startRedisCluster,
} from "../../_support/redis_cluster.ts";
import {
  redisSentinelSkip,
  type RedisTestSentinel,
  SENTINEL_NAME,
  startRedisSentinel,
} from "../../_support/redis_sentinel.ts";
import {
  checksOf,
  doctorSkip,
  type Fixture,
  fixture,
  runDoctorJson,
} from "./_doctor_run.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const DEAD = "127.0.0.1:9";
const PASSWORD = "redis-pass-fixture-91c4";
const SENTINEL_PASSWORD = "sentinel-pass-fixture-3e7a";

// The services fixture without its Redis host: the topology comes from the
// variables alone.
async function withoutHost(): Promise<Fixture> {
  const project = await fixture("services");
  const file = join(project.dir, "appsettings.json");
  const settings = JSON.parse(await readFile(file, "utf8"));
  delete settings.cache;
  await writeFile(file, JSON.stringify(settings));
  return project;
}

type Checks = Awaited<ReturnType<typeof runDoctorJson>>["report"]["checks"];

async function redisCheck(
  env: Record<string, string>,
  project?: Fixture,
): Promise<{ check: Checks[number]; text: string }> {
  await using own = project === undefined ? await withoutHost() : undefined;
  const dir = (project ?? own)!.dir;
  const { report } = await runDoctorJson(
    [dir, "--connect", "--timeout", "2000"],
    { env },
  );
  const check = checksOf(report, "Services").find((c) => c.name === "Redis")!;
  return { check, text: JSON.stringify(report) };
}

if (doctorSkip !== false) {
  test("kit doctor Redis topologies", { skip: doctorSkip }, () => {});
} else {
  describe("kit doctor Redis check: settings the cache refuses", () => {
    it("fails when both a cluster and Sentinel are set", async () => {
      const { check } = await redisCheck({
        REDIS_CLUSTER_NODES: "127.0.0.1:7000",
        REDIS_SENTINELS: "127.0.0.1:26379",
        REDIS_SENTINEL_NAME: "mymaster",
      });
      assert.equal(check.status, "fail", JSON.stringify(check));
      assert.match(
        check.message,
        /both a Redis Cluster \(cache:redis:cluster:nodes from env REDIS_CLUSTER_NODES\) and Sentinel \(cache:redis:sentinel:nodes from env REDIS_SENTINELS\) are set/,
      );
      assert.match(check.advice!, /keep one: unset REDIS_CLUSTER_NODES/);
    });

    it("fails when the sentinel name or nodes are missing, or a node is not host:port", async () => {
      const nameOnly = await redisCheck({ REDIS_SENTINEL_NAME: "mymaster" });
      assert.equal(nameOnly.check.status, "fail");
      assert.match(
        nameOnly.check.message,
        /cache:redis:sentinel:name from env REDIS_SENTINEL_NAME is set without cache:redis:sentinel:nodes/,
      );
      assert.match(nameOnly.check.advice!, /set both REDIS_SENTINEL_NAME/);
      const bad = await redisCheck({
        REDIS_CLUSTER_NODES: "127.0.0.1:7000,redis-b",
      });
      assert.equal(bad.check.status, "fail");
      assert.match(
        bad.check.message,
        /cache:redis:cluster:nodes from env REDIS_CLUSTER_NODES is not a list of host:port: bad entry "redis-b"/,
      );
      assert.match(bad.check.advice!, /set REDIS_CLUSTER_NODES/);
    });
  });

  if (redisClusterSkip !== false) {
    test("kit doctor Redis Cluster", { skip: redisClusterSkip }, () => {});
  } else {
    describe("kit doctor Redis check: Redis Cluster", () => {
      let cluster: RedisTestCluster;
      before(async () => {
        cluster = await startRedisCluster();
      });
      after(async () => {
        await cluster?.close();
      });

      it("checks every node and reports cluster_state", async () => {
        const { check } = await redisCheck({
          REDIS_CLUSTER_NODES: cluster.addresses.join(","),
        });
        assert.equal(check.status, "pass", JSON.stringify(check));
        assert.equal(
          check.message,
          "Redis Cluster (cache:redis:cluster:nodes from env REDIS_CLUSTER_NODES): all 6 nodes answered PING without a password and report cluster_state:ok (3 primaries serving 16384 slots, 6 nodes known)",
        );
      });

      it("warns naming a listed node that does not answer while the others do", async () => {
        const { check } = await redisCheck({
          REDIS_CLUSTER_NODES: [...cluster.addresses.slice(0, 3), DEAD].join(
            ",",
          ),
        });
        assert.equal(check.status, "warn", JSON.stringify(check));
        assert.match(
          check.message,
          /3 of 4 nodes answered PING without a password and report cluster_state:ok; 127\.0\.0\.1:9 did not answer$/,
        );
        assert.match(check.details![0], /^127\.0\.0\.1:9 did not answer: /);
        assert.match(
          check.advice!,
          /start 127\.0\.0\.1:9, or remove it from REDIS_CLUSTER_NODES/,
        );
      });

      it("fails naming every node when none answers", async () => {
        const { check } = await redisCheck({
          REDIS_CLUSTER_NODES: `${DEAD},127.0.0.1:1`,
        });
        assert.equal(check.status, "fail", JSON.stringify(check));
        assert.match(
          check.message,
          /2 of 2 nodes failed .*127\.0\.0\.1:9 did not answer: .*; 127\.0\.0\.1:1 did not answer: /,
        );
        assert.match(
          check.advice!,
          /start 127\.0\.0\.1:9, 127\.0\.0\.1:1, or set REDIS_CLUSTER_NODES/,
        );
      });

      it("says the cluster wins when a host is set as well", async () => {
        // The services fixture names a Redis host of its own (127.0.0.1:9).
        await using project = await fixture("services");
        const { check } = await redisCheck(
          { REDIS_CLUSTER_NODES: cluster.addresses.join(",") },
          project,
        );
        assert.equal(check.status, "warn", JSON.stringify(check));
        assert.match(check.message, /all 6 nodes answered PING/);
        assert.deepEqual(check.details, [
          "cache:redis:host from appsettings.json is set too and ignored: cache:redis:cluster:nodes wins over host and port",
        ]);
        assert.match(check.advice!, /unset REDIS_HOST \(cache:redis:host\)/);
      });
    });
  }

  if (redisSentinelSkip !== false) {
    test("kit doctor Redis Sentinel", { skip: redisSentinelSkip }, () => {});
  } else {
    describe("kit doctor Redis check: Sentinel", () => {
      let set: RedisTestSentinel;
      before(async () => {
        set = await startRedisSentinel();
      });
      after(async () => {
        await set?.close();
      });

      it("asks the sentinels for the primary and checks it answers", async () => {
        const primary = await set.primary();
        const { check } = await redisCheck({
          REDIS_SENTINELS: set.sentinels.join(","),
          REDIS_SENTINEL_NAME: SENTINEL_NAME,
        });
        assert.equal(check.status, "pass", JSON.stringify(check));
        assert.equal(
          check.message,
          `Redis Sentinel "${SENTINEL_NAME}" (cache:redis:sentinel:nodes from env REDIS_SENTINELS): 3 of 3 sentinels name the primary ${primary}, which answered PING without a password as the primary`,
        );
      });

      it("warns naming a sentinel that does not answer", async () => {
        const { check } = await redisCheck({
          REDIS_SENTINELS: [DEAD, ...set.sentinels.slice(1)].join(","),
          REDIS_SENTINEL_NAME: SENTINEL_NAME,
        });
        assert.equal(check.status, "warn", JSON.stringify(check));
        assert.match(check.message, /2 of 3 sentinels name the primary /);
        assert.match(check.message, /; 127\.0\.0\.1:9 failed$/);
        assert.match(check.details![0], /^127\.0\.0\.1:9 did not answer: /);
        assert.match(
          check.advice!,
          /start 127\.0\.0\.1:9, or remove it from REDIS_SENTINELS/,
        );
      });

      it("fails naming every sentinel when none knows the name", async () => {
        const { check } = await redisCheck({
          REDIS_SENTINELS: set.sentinels.join(","),
          REDIS_SENTINEL_NAME: "not-monitored",
        });
        assert.equal(check.status, "fail", JSON.stringify(check));
        for (const address of set.sentinels) {
          assert.ok(
            check.message.includes(
              `${address} monitors no primary named "not-monitored"`,
            ),
            check.message,
          );
        }
        assert.match(check.advice!, /set REDIS_SENTINEL_NAME/);
      });

      it("fails naming the sentinels when none answers", async () => {
        const { check } = await redisCheck({
          REDIS_SENTINELS: DEAD,
          REDIS_SENTINEL_NAME: SENTINEL_NAME,
        });
        assert.equal(check.status, "fail", JSON.stringify(check));
        assert.match(
          check.message,
          /no sentinel named the primary: 127\.0\.0\.1:9 did not answer/,
        );
        assert.match(
          check.advice!,
          /start the sentinels, or set REDIS_SENTINELS/,
        );
      });

      it("says Sentinel wins when a host is set as well", async () => {
        await using project = await fixture("services");
        const { check } = await redisCheck({
          REDIS_SENTINELS: set.sentinels.join(","),
          REDIS_SENTINEL_NAME: SENTINEL_NAME,
        }, project);
        assert.equal(check.status, "warn", JSON.stringify(check));
        assert.deepEqual(check.details, [
          "cache:redis:host from appsettings.json is set too and ignored: cache:redis:sentinel:nodes wins over host and port",
        ]);
      });
    });

    describe("kit doctor Redis check: Sentinel with passwords", () => {
      let set: RedisTestSentinel;
      before(async () => {
        // Sentinels slow to notice a dead primary: the last test kills it
        // and checks the doctor names it while they still announce it.
        set = await startRedisSentinel({
          password: PASSWORD,
          sentinelPassword: SENTINEL_PASSWORD,
          downAfter: 60_000,
        });
      });
      after(async () => {
        await set?.close();
      });

      const env = (): Record<string, string> => ({
        REDIS_SENTINELS: set.sentinels.join(","),
        REDIS_SENTINEL_NAME: SENTINEL_NAME,
        REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD,
        REDIS_PASSWORD: PASSWORD,
      });

      it("passes with both passwords, printing neither", async () => {
        const { check, text } = await redisCheck(env());
        assert.equal(check.status, "pass", JSON.stringify(check));
        assert.match(
          check.message,
          /answered PING with the password of cache:redis:password from env REDIS_PASSWORD as the primary$/,
        );
        assert.ok(
          !text.includes(PASSWORD) && !text.includes(SENTINEL_PASSWORD),
        );
      });

      it("says which password is missing or refused", async () => {
        const noSentinelPassword = await redisCheck({
          ...env(),
          REDIS_SENTINEL_PASSWORD: "",
        });
        assert.equal(noSentinelPassword.check.status, "fail");
        assert.match(noSentinelPassword.check.message, /answered -NOAUTH/);
        assert.match(
          noSentinelPassword.check.advice!,
          /requires a password: set REDIS_SENTINEL_PASSWORD/,
        );
        const wrong = await redisCheck({
          ...env(),
          REDIS_PASSWORD: "not-the-password-8d1",
        });
        assert.equal(wrong.check.status, "fail");
        assert.match(
          wrong.check.message,
          /3 of 3 sentinels name the primary .*, which answered -WRONGPASS/,
        );
        assert.match(
          wrong.check.advice!,
          /refuses the password: set REDIS_PASSWORD/,
        );
        assert.ok(!wrong.text.includes("not-the-password-8d1"));
      });

      it("names the primary the sentinels announce when it does not answer", async () => {
        const primary = await set.primary();
        await set.kill(primary);
        const { check } = await redisCheck(env());
        assert.equal(check.status, "fail", JSON.stringify(check));
        assert.match(
          check.message,
          new RegExp(
            `3 of 3 sentinels name the primary ${
              primary.replaceAll(".", "\\.")
            }, which did not answer: `,
          ),
        );
        assert.match(
          check.advice!,
          new RegExp(
            `start the Redis server at ${primary.replaceAll(".", "\\.")}`,
          ),
        );
      });
    });
  }
}
