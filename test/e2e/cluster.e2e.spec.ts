import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule } from '../../src';
import { call, startApp } from '../helpers/http';
import { watchLateness } from '../helpers/lateness';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

const STORE_TIMEOUT_MS = 200;

@Controller()
class ClusterController {
  @Get('item')
  @CountLimit({ key: 'item:#{query.k}', limit: 3, period: 60 })
  item() {
    return 'ok';
  }
}

/** Runs `paths` with at most `concurrency` requests in flight; statuses and times by index. */
async function run(port: number, paths: string[], concurrency = 100) {
  const replies: { status: number; elapsedMs: number }[] = new Array(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      const { status, elapsedMs } = await call(port, { path: paths[i] });
      replies[i] = { status, elapsedMs };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return replies;
}

describe('the guard on a 3-master Redis Cluster with replicas', () => {
  let cluster: RedisClusterHandle;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 1 });
    // slotsRefreshInterval is off by default in ioredis: without it a client may keep
    // sending to a master that stopped answering. commandTimeout bounds stuck commands.
    const client = cluster.client({
      slotsRefreshInterval: 1000,
      slotsRefreshTimeout: 500,
      redisOptions: { commandTimeout: 1000 },
    });
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          redis: client,
          onStoreError: 'allow',
          storeTimeout: STORE_TIMEOUT_MS,
        }),
      ],
      controllers: [ClusterController],
    })
    class ClusterModule {}
    ({ app, port } = await startApp(ClusterModule, 'express'));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  it('2,000 requests over 500 keys: exactly 3 allowed per key, on all three masters', async () => {
    const keys = Array.from({ length: 500 }, (_, i) => `k${i}`);
    const owners = new Set(
      await Promise.all(keys.map((k) => cluster.masterForKey(`countLimit:item:${k}`))),
    );
    expect(owners.size).toBe(3);
    const paths = keys.flatMap((k) => [0, 1, 2, 3].map(() => `/item?k=${k}`));
    const replies = await run(port, paths);
    const allowedPerKey = new Map<string, number>();
    replies.forEach((reply, i) => {
      expect([200, 429]).toContain(reply.status);
      if (reply.status === 200) allowedPerKey.set(paths[i], (allowedPerKey.get(paths[i]) ?? 0) + 1);
    });
    expect(allowedPerKey.size).toBe(500);
    expect(new Set(allowedPerKey.values())).toEqual(new Set([3]));
  }, 60_000);

  it("a master dies: every request finishes within storeTimeout + 100 ms (and the loop's lateness); exact again after failover", async () => {
    const victim = cluster.masterPorts()[0];
    const onVictim: string[] = [];
    for (let i = 0; onVictim.length < 40; i++) {
      if ((await cluster.masterForKey(`countLimit:item:gap${i}`)) === victim)
        onVictim.push(`gap${i}`);
    }
    await cluster.killMaster(victim);
    const failover = cluster.waitForFailover(victim);
    let settled = false;
    void failover.then(
      () => (settled = true),
      () => (settled = true),
    );
    const lateness = watchLateness();
    const gapTimes: number[] = [];
    const gapStatuses = new Set<number>();
    for (let round = 0; !settled && round < 200; round++) {
      const replies = await run(
        port,
        onVictim.slice(0, 10).map((k) => `/item?k=${k}`),
        10,
      );
      for (const reply of replies) {
        gapTimes.push(reply.elapsedMs);
        gapStatuses.add(reply.status);
      }
    }
    await failover;
    lateness.stop();
    expect(gapTimes.length).toBeGreaterThan(0);
    expect(Math.max(...gapTimes)).toBeLessThan(STORE_TIMEOUT_MS + 100 + 2 * lateness.maxMs());
    expect([...gapStatuses].every((status) => status === 200 || status === 429)).toBe(true);

    // Fresh keys on the promoted master: exact again (state written just before the crash
    // may be lost, as replication is asynchronous, so only fresh keys are asserted).
    const fresh = onVictim.slice(20, 30);
    const deadline = Date.now() + 10_000;
    let replies: { status: number }[] = [];
    for (;;) {
      replies = await run(
        port,
        fresh.flatMap((k) => Array.from({ length: 5 }, () => `/item?k=${k}-after`)),
        50,
      );
      if (replies.filter((reply) => reply.status === 200).length === 30 || Date.now() > deadline)
        break;
      fresh.forEach((k, i) => (fresh[i] = `${k}x`)); // a store still recovering answered 'allow': try new keys
    }
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(30);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(20);
  }, 60_000);
});
