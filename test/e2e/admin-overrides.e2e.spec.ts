import { INestApplication } from '@nestjs/common';
import { LiveSettings, NetworkLists } from '../../src';
import { adminCall, hit, startAdminApp } from '../helpers/admin-app';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Hits from `ip` until the first denial; answers how many passed (at most `max`). */
async function admittedFrom(port: number, ip: string, max = 10): Promise<number> {
  for (let i = 0; i < max; i++) if ((await hit(port, ip)) !== 200) return i;
  return max;
}

describe('live overrides and network lists, on two servers sharing one Redis', () => {
  let redis: RedisServer;
  const apps: { app: INestApplication; port: number }[] = [];
  const [a, b] = [0, 1];
  const port = (i: number) => apps[i].port;

  beforeAll(async () => {
    redis = await startRedisServer();
    apps.push(await startAdminApp('express', { redis: redis.url }));
    apps.push(await startAdminApp('fastify', { redis: redis.url }));
  });
  afterAll(async () => {
    for (const { app } of apps) await app.close();
    await redis?.stop();
  });

  /** Milliseconds until server `i` lists `count` overrides (its poll picked them up). */
  async function untilListed(i: number, count: number): Promise<number> {
    const started = Date.now();
    const listed = await eventually(
      async () => (await adminCall(port(i), 'GET', 'api/overrides')).body.overrides.length,
      count,
      3000,
    );
    expect(listed).toBe(count);
    return Date.now() - started;
  }

  it('an override of a named limit changes it on every server within a second, until removed', async () => {
    expect(await admittedFrom(port(a), '127.0.0.10')).toBe(2);
    const put = await adminCall(port(a), 'PUT', 'api/overrides/perIp', {
      options: { limit: 5 },
      ttl: 600,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'perIp', options: { limit: 5 } });
    expect(await untilListed(b, 1)).toBeLessThan(1000);

    expect(await admittedFrom(port(a), '127.0.0.11')).toBe(5);
    expect(await admittedFrom(port(b), '127.0.0.12')).toBe(5);
    // The count so far stays: the key already holding 2 (and blocked) stays blocked.
    expect(await hit(port(b), '127.0.0.10')).toBe(429);

    expect((await adminCall(port(b), 'DELETE', 'api/overrides/perIp')).status).toBe(204);
    expect(await untilListed(a, 0)).toBeLessThan(1000);
    expect(await admittedFrom(port(a), '127.0.0.13')).toBe(2);
    expect(await admittedFrom(port(b), '127.0.0.14')).toBe(2);
  });

  it('an override ends on every server when it expires', async () => {
    const put = await adminCall(port(b), 'PUT', 'api/overrides/perIp', {
      options: { limit: 4 },
      ttl: 1,
    });
    expect(put.status).toBe(200);
    await untilListed(a, 1);
    expect(await admittedFrom(port(a), '127.0.0.15')).toBe(4);
    await untilListed(a, 0);
    await untilListed(b, 0);
    expect(await admittedFrom(port(a), '127.0.0.16')).toBe(2);
    expect(await admittedFrom(port(b), '127.0.0.17')).toBe(2);
  });

  it('refuses an override no limit accepts, of a name no limit has, or of a key option', async () => {
    const replies = await Promise.all([
      adminCall(port(a), 'PUT', 'api/overrides/perIp', { options: { limit: 0 }, ttl: 60 }),
      adminCall(port(a), 'PUT', 'api/overrides/nope', { options: { limit: 5 }, ttl: 60 }),
      adminCall(port(a), 'PUT', 'api/overrides/perIp', { options: { key: 'x' }, ttl: 60 }),
      adminCall(port(a), 'PUT', 'api/overrides/perIp', { options: { limit: 5 } }),
      adminCall(port(a), 'PUT', 'api/overrides/perIp', { options: { limit: { $gt: 1 } }, ttl: 9 }),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([400, 404, 400, 400, 400]);
    expect(replies[0].body.message).toBe(
      "@CountLimit on HitController.hit: option 'limit' must be an integer >= 1, got 0",
    );
    expect(replies[2].body.message).toBe(
      "override of 'perIp': option 'key' must be unset: an override changes only rate, burst, capacity, permits, timeout, expire, initialPermits, lease, limit, period, window, max, softLimit, block, got 'x'",
    );
    expect((await adminCall(port(b), 'GET', 'api/overrides')).body).toEqual({ overrides: [] });
    expect(await admittedFrom(port(b), '127.0.0.18')).toBe(2);
  });

  it('network lists put through one server reach every server within a second', async () => {
    const seen: NetworkLists[] = [];
    const unsubscribe = apps[b].app.get(LiveSettings).onNetworks((lists) => seen.push(lists));
    expect(seen).toEqual([{ allow: [], deny: [] }]);
    const lists = { allow: ['10.0.0.0/8', '2001:db8::/32'], deny: ['203.0.113.7'] };
    const started = Date.now();
    const put = await adminCall(port(a), 'PUT', 'api/networks', lists);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(lists);
    expect(await eventually(async () => seen.length, 2, 3000)).toBe(2);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen[1]).toEqual(lists);
    expect((await adminCall(port(b), 'GET', 'api/networks')).body).toEqual(lists);
    unsubscribe();

    const bad = await adminCall(port(a), 'PUT', 'api/networks', { allow: ['10.0.0.0/33'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(`'allow': "10.0.0.0/33" is not a CIDR network`);
  });
});
