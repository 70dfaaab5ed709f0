import { Controller, Get, Module } from '@nestjs/common';
import {
  ConcurrencyLimit,
  CountLimit,
  LimiterStore,
  RateLimit,
  RateLimiterFactory,
  RateLimiterModule,
  SlidingWindowLimit,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call, HttpReply, PLATFORMS, startApp } from '../helpers/http';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

/**
 * 2 a minute and `hourly` an hour, on one handler, all or nothing. A minute, not seconds: the
 * waves must fall in one window however slow the machine.
 */
function groupController(hourly: number) {
  @Controller()
  class GroupController {
    runs = 0;

    @Get('hit')
    @SlidingWindowLimit({ limit: 2, window: 60 })
    @CountLimit({ limit: hourly, period: 3600 })
    hit() {
      this.runs++;
      return 'ok';
    }

    /** A slot and a window: the slot is no member to release once the window denies. */
    @Get('slot')
    @ConcurrencyLimit({ max: 5 })
    @SlidingWindowLimit({ limit: 1, window: 60 })
    slot() {
      this.runs++;
      return 'ok';
    }

    /** A bucket whose denials write nothing: what the window's denials leave in it is exact. */
    @Get('bucket')
    @SlidingWindowLimit({ limit: 2, window: 60 })
    @RateLimit({ key: 'bucket', rate: 20 / 3600, burst: 3600 })
    bucket() {
      this.runs++;
      return 'ok';
    }

    /** Keys chosen by the test: on one master, or on two. */
    @Get('chosen')
    @SlidingWindowLimit({ key: 'w:#{query.k}', limit: 2, window: 60 })
    @CountLimit({ key: 'c:#{query.k}', limit: hourly, period: 3600 })
    chosen() {
      this.runs++;
      return 'ok';
    }

    /** The same limits declared the other way round: the cached one is decided first. */
    @Get('tih')
    @CountLimit({ limit: hourly, period: 3600 })
    @SlidingWindowLimit({ limit: 2, window: 60 })
    tih() {
      this.runs++;
      return 'ok';
    }
  }
  return GroupController;
}

const HOURLY_KEY = 'countLimit:~GroupController.hit';

/** `size` requests at once, each on its own socket. */
function wave(port: number, size: number, path = '/hit'): Promise<HttpReply[]> {
  return Promise.all(Array.from({ length: size }, () => call(port, { path })));
}

/** Retry-After of the denied replies: the minute's window, never the hour's. */
function retryAfters(replies: HttpReply[]): Set<number> {
  return new Set(
    replies.filter((r) => r.status === 429).map((r) => Number(r.headers['retry-after'])),
  );
}

const count = (replies: HttpReply[], status: number) =>
  replies.filter((r) => r.status === status).length;

/**
 * A limit answered from the local denial cache denies the whole request without sending the
 * others: the hourly counter keeps only what the handler runs took.
 */
describe.each(PLATFORMS)('all or nothing under the denial cache on %s', (platform) => {
  const Group = groupController(20);
  // Exact counts hold while Redis answers within storeTimeout; a generous one keeps a starved
  // machine from failing open ('allow') in a test that is about the denial cache.
  const env = useAppOnRedis([Group], platform, { storeTimeout: 2000 });

  it.each(['hit', 'tih'])(
    '/%s, 3 waves of 300 at once: 2 runs, the hourly counter at 2, Retry-After of the window',
    async (handler) => {
      const runsBefore = env.app.get(Group).runs;
      const replies: HttpReply[] = [];
      for (let i = 0; i < 3; i++) replies.push(...(await wave(env.port, 300, `/${handler}`)));
      expect(env.app.get(Group).runs - runsBefore).toBe(2);
      expect(count(replies, 200)).toBe(2);
      expect(count(replies, 429)).toBe(898);
      expect(await env.admin.get(`countLimit:~GroupController.${handler}`)).toBe('2');
      for (const seconds of retryAfters(replies)) expect(seconds).toBeLessThanOrEqual(60);
    },
    60_000,
  );

  it('a window known denied locally costs Redis nothing, not even a slot release', async () => {
    await afterStartUpCheck(env.admin);
    expect((await wave(env.port, 2, '/slot')).map((r) => r.status).sort()).toEqual([200, 429]);
    const callsBefore = await scriptCalls(env.admin);
    const replies = await wave(env.port, 100, '/slot');
    expect(count(replies, 429)).toBe(100);
    expect((await scriptCalls(env.admin)) - callsBefore).toBe(0);
    expect(await env.admin.zcard('concurrency:~GroupController.slot')).toBe(0);
  });
});

/**
 * On a Cluster the two keys live on different masters and are decided apart: what the
 * allowed member took is given back before the answer, and a member known denied locally
 * sends nothing.
 */
describe('all or nothing under the denial cache on a 3-master Cluster', () => {
  // 3 an hour: a member sent and given back would be found taken by the next requests.
  const Group = groupController(3);
  let cluster: RedisClusterHandle;
  let app: Awaited<ReturnType<typeof startApp>>['app'];
  let port: number;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: cluster.client(), storeTimeout: 2000 })],
      controllers: [Group],
    })
    class ClusterModule {}
    ({ app, port } = await startApp(ClusterModule, 'express'));
    // The module's start-up check runs in the background; denials are remembered only once
    // the store hears other servers' resets, so wait for it as a live app would have.
    await app.get(LimiterStore).check();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  it('3 then 2 waves of 300: 2 runs, the hourly counter at 2', async () => {
    const slidingMaster = await cluster.masterForKey('slidingWindow:~GroupController.hit');
    expect(await cluster.masterForKey(HOURLY_KEY)).not.toBe(slidingMaster);
    // 3 first: no more than the hour's 3, so its own denials play no part.
    const replies = await wave(port, 3);
    for (let i = 0; i < 2; i++) replies.push(...(await wave(port, 300)));
    expect(app.get(Group).runs).toBe(2);
    expect(count(replies, 200)).toBe(2);
    expect(count(replies, 429)).toBe(601);
    expect(await cluster.client().get(HOURLY_KEY)).toBe('2');
    for (const seconds of retryAfters(replies)) expect(seconds).toBeLessThanOrEqual(60);
  }, 60_000);

  it('keys on one master are decided together: no request is denied by what others took', async () => {
    let k = 0;
    const master = (prefix: string) => cluster.masterForKey(`${prefix}${k}`);
    while ((await master('slidingWindow:w:')) !== (await master('countLimit:c:'))) k++;
    const runsBefore = app.get(Group).runs;
    const replies = await wave(port, 300, `/chosen?k=${k}`);
    expect(app.get(Group).runs - runsBefore).toBe(2);
    expect(count(replies, 429)).toBe(298);
    // Every denial is the window's: the hour's 3 were never found taken by a denied request.
    for (const seconds of retryAfters(replies)) expect(seconds).toBeLessThanOrEqual(60);
    expect(await cluster.client().get(`countLimit:c:${k}`)).toBe('2');
  }, 60_000);

  it('what the allowed members took is given back before the answer: nothing stays taken', async () => {
    // 10 at once, fewer than the bucket's 20: the window alone denies, on another master.
    const replies = await wave(port, 10, '/bucket');
    expect(count(replies, 200)).toBe(2);
    const bucket = app.get(RateLimiterFactory).rateLimiter({
      key: 'bucket',
      rate: 20 / 3600,
      burst: 3600,
    });
    expect((await bucket.peek()).remaining).toBe(18);
  }, 60_000);
});
