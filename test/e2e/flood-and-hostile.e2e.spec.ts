import { Controller, Get, Query } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, RateLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, load, PLATFORMS } from '../helpers/http';

@Controller()
class TargetController {
  @Get('flood')
  @CountLimit({ limit: 5, period: 60 })
  flood() {
    return 'ok';
  }

  @Get('by-key')
  @CountLimit({ key: 'k:#{query.a}', limit: 1, period: 1 })
  byKey(@Query('a') a: string) {
    return { length: String(a).length };
  }

  @Get('bucket')
  @RateLimit({ rate: 0.001, burst: 50_000 })
  bucket() {
    return 'ok';
  }
}

/** Sum of calls over every Redis command, less the INFO that reads it. */
async function commandCount(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].reduce(
    (sum, [, name, calls]) => (name === 'info' ? sum : sum + Number(calls)),
    0,
  );
}

describe.each(PLATFORMS)('floods and hostile input on %s', (platform) => {
  const env = useAppOnRedis([TargetController], platform);

  it('once a key is denied, 2,000 more requests cost fewer than 10 Redis commands', async () => {
    expect(await load(env.port, () => '/flood', 6, 1)).toEqual({ 200: 5, 429: 1 });
    const before = await commandCount(env.admin);
    expect(await load(env.port, () => '/flood', 2_000)).toEqual({ 429: 2_000 });
    expect((await commandCount(env.admin)) - before).toBeLessThan(10);
  });

  it('keeps deciding through SCRIPT FLUSH during traffic: exactly the limit, no 5xx', async () => {
    const flushing = (async () => {
      for (let i = 0; i < 10; i++) {
        await env.admin.script('FLUSH');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const [statuses] = await Promise.all([load(env.port, () => '/bucket', 400, 20), flushing]);
    // 50 permits in the bucket, refilling one per 1000 s.
    expect(statuses).toEqual({ 200: 50, 429: 350 });
  });

  it('hashes a 10,000-character key value into a bounded key', async () => {
    const huge = 'x'.repeat(10_000);
    await env.admin.flushall();
    const reply = await call(env.port, { path: `/by-key?a=${huge}` });
    expect(reply.status).toBe(200);
    const keys = await env.admin.keys('countLimit:*');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^countLimit:%#countLimit:[0-9a-f]{40}$/);
    expect((await call(env.port, { path: `/by-key?a=${huge}` })).status).toBe(429);
  });

  it('answers 400, never 500, to a structured or missing key value', async () => {
    for (const path of ['/by-key?a[b]=1', '/by-key?a=1&a=2', '/by-key', '/by-key?a=']) {
      const reply = await call(env.port, { path });
      expect([path, reply.status]).toEqual([path, 400]);
    }
  });
});
