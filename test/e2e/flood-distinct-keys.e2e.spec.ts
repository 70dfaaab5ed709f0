import { Controller, Get, Query } from '@nestjs/common';
import { CountLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { load } from '../helpers/http';

@Controller()
class AttackedController {
  @Get('by-key')
  @CountLimit({ key: 'k:#{query.a}', limit: 1, period: 1 })
  byKey(@Query('a') a: string) {
    return { length: String(a).length };
  }
}

// About Redis keys and TTLs, not the adapter: one platform is enough. The load runs in the
// test's own process, so it measures nothing about speed.
describe('100,000 distinct attacker keys on fastify', () => {
  const env = useAppOnRedis([AttackedController], 'fastify');

  it('correct decisions, no 5xx, memory freed by the TTLs', async () => {
    await env.admin.flushall();
    const statuses = await load(env.port, (i) => `/by-key?a=attacker-${i}`, 100_000, 64);
    expect(statuses).toEqual({ 200: 100_000 });
    expect(await env.admin.dbsize()).toBeLessThanOrEqual(100_000);
    expect(await env.admin.pttl('countLimit:k:attacker-99999')).toBeGreaterThan(0);
    // Every key carries its window's TTL (1 s): once it passes, nothing is left, as soon as
    // Redis's expiry cycle (which a starved CPU slows) has been through them.
    const deadline = Date.now() + 30_000;
    while ((await env.admin.dbsize()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await env.admin.dbsize()).toBe(0);
    // A bound for a hang, not for speed: 100,000 requests from this process on a busy machine.
  }, 300_000);
});
