import { INestApplication } from '@nestjs/common';
import { ADMIN_HEADERS, adminCall, hit, startAdminApp } from '../helpers/admin-app';
import { call, PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * A deny list that covers the admin's own address: the app's routes answer 403, the admin's
 * answer to the admin's guard alone, so the PUT that undoes the list still works.
 */
describe.each(PLATFORMS)('the admin page under a deny list that covers it, on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startAdminApp(platform, { redis: redis.url }));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('answers the admin, refuses others, and lets the admin undo the list', async () => {
    const put = await adminCall(port, 'PUT', 'api/networks', { deny: ['127.0.0.0/8'] });
    expect(put.status).toBe(200);
    expect(await hit(port, '127.0.0.21')).toBe(403);
    expect((await call(port, { path: '/rate-limits', headers: ADMIN_HEADERS })).status).toBe(200);
    expect((await adminCall(port, 'GET', 'api/top')).status).toBe(200);
    // Not the admin: its guard refuses, whatever the lists.
    expect((await call(port, { path: '/rate-limits/api/top' })).status).toBe(403);
    const undo = await adminCall(port, 'PUT', 'api/networks', { deny: [] });
    expect(undo.status).toBe(200);
    expect(await hit(port, '127.0.0.21')).toBe(200);
  });
});
