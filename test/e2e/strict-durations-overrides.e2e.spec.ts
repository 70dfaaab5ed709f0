import { INestApplication } from '@nestjs/common';
import { adminCall, hit, startAdminApp } from '../helpers/admin-app';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

describe('strictDurations and live overrides', () => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startAdminApp('express', { redis: redis.url, strictDurations: true }));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('refuses an override whose time is a bare number from 1,000 up, and takes its string', async () => {
    const bare = await adminCall(port, 'PUT', 'api/overrides/perIp', {
      options: { period: 60_000 },
      ttl: 60,
    });
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe(
      "@CountLimit on HitController.hit: option 'period' is a bare number of seconds from 1000 up (60000: 16.7 hours), which strictDurations refuses: write '1m' for 60000 milliseconds or '1000m' for 60000 seconds",
    );
    expect((await adminCall(port, 'GET', 'api/overrides')).body).toEqual({ overrides: [] });

    const written = await adminCall(port, 'PUT', 'api/overrides/perIp', {
      options: { period: '1m', limit: 3 },
      ttl: 60,
    });
    expect(written.status).toBe(200);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await hit(port, '127.0.0.40'));
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
