import { Controller, Get, INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit } from '../../src';
import { adminCall, startAdminApp } from '../helpers/admin-app';
import { call } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const HOT_LIMIT = '@CountLimit on HotController.hot';

@Controller()
class HotController {
  @Get('hot')
  @CountLimit({ name: 'hot', key: 'hot', limit: 1000, period: 600, lease: 100 })
  hot() {
    return 'ok';
  }
}

/** How many of `count` requests to /hot, sent together, were admitted. */
async function admitted(port: number, count: number): Promise<number> {
  const replies = await Promise.all(
    Array.from({ length: count }, () => call(port, { path: '/hot' })),
  );
  return replies.filter((reply) => reply.status === 200).length;
}

/** The admin's reset and override end the leases of every server, at once. */
describe('a leased limit under the admin API, on two servers', () => {
  let redis: RedisServer;
  let admin: Redis;
  let apps: { app: INestApplication; port: number }[];
  const count = async () => Number((await admin.get('countLimit:hot')) ?? 0);

  beforeEach(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    apps = [
      await startAdminApp('express', { redis: redis.url }, [HotController]),
      await startAdminApp('express', { redis: redis.url }, [HotController]),
    ];
  });
  afterEach(async () => {
    for (const { app } of apps) await app.close();
    await redis.stop();
  });

  it('a reset on server B: server A hands out nothing it leased before, nor gives it back', async () => {
    const [a, b] = apps;
    expect(await admitted(a.port, 5)).toBe(5);
    expect(await count()).toBe(100);
    const ref = { limit: HOT_LIMIT, name: 'hot', key: 'countLimit:hot' };
    expect((await adminCall(b.port, 'POST', 'api/reset', ref)).status).toBe(200);
    expect(await count()).toBe(0);
    // A leases again after the reset: the 10 it admits are counted, out of a new lease.
    expect(await admitted(a.port, 10)).toBe(10);
    expect(await count()).toBe(100);
    await a.app.close();
    expect(await count()).toBe(10);
  });

  it("an override: the old limit's leases end first, and the new limit admits exactly what it has left", async () => {
    const [a] = apps;
    expect(await admitted(a.port, 10)).toBe(10);
    expect(await count()).toBe(100);
    const put = await adminCall(a.port, 'PUT', 'api/overrides/hot', {
      options: { limit: 50 },
      ttl: 600,
    });
    expect(put.status).toBe(200);
    // The lease taken under the old limit ended with the change, before any request came.
    expect(await count()).toBe(10);
    // 10 admitted under the old limit: 40 more under the new one, on the spot.
    expect(await admitted(a.port, 60)).toBe(40);
    await a.app.close();
    expect(await count()).toBe(50);
  });
});
