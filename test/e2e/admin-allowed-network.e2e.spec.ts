import { INestApplication } from '@nestjs/common';
import { adminCall, startAdminApp } from '../helpers/admin-app';
import { PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The admin's routes are outside the deny list (it must not lock out its own undo), not
 * outside the allow list: a client of an allowed network is never limited, on the admin's
 * routes as on any other, defaults included.
 */
describe.each(PLATFORMS)('the admin page for an allowed network on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startAdminApp(platform, {
      redis: redis.url,
      defaults: [{ name: 'everyRoute', algorithm: 'countLimit', limit: 2, period: 60 }],
      allow: ['127.0.0.0/8'],
    }));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('is never limited there, as the allow list says', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await adminCall(port, 'GET', 'api/top')).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
  });
});
