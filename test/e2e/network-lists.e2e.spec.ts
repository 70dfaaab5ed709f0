import { Controller, Get, INestApplication } from '@nestjs/common';
import { CountLimit, LimitType, RateLimitEvent } from '../../src';
import { startBehindProxy } from '../helpers/behind-proxy';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call, PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Controller('net')
class NetController {
  @Get('limited')
  @CountLimit({ name: 'one', limit: 1, period: 60, limitType: LimitType.IP })
  limited() {
    return 'ok';
  }

  @Get('open')
  open() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('allow and deny networks on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  const events: RateLimitEvent[] = [];
  const from = (forwardedFor: string, path = '/net/limited') =>
    call(port, { path, headers: { 'x-forwarded-for': forwardedFor } });
  const statusesFrom = async (forwardedFor: string, times: number) => {
    const statuses = [];
    for (let i = 0; i < times; i++) statuses.push((await from(forwardedFor)).status);
    return statuses;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startBehindProxy(
      platform,
      {
        redis: redis.url,
        allow: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.77'],
        deny: ['203.0.113.0/24', '2001:db9:ab00::/40', '10.66.0.0/16'],
        onDecision: (event) => events.push(event),
      },
      [NetController],
    ));
    await afterStartUpCheck(redis.client());
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });
  beforeEach(() => {
    events.length = 0;
  });

  it('never limits an allowed network: every limit skipped, no store call', async () => {
    const admin = redis.client();
    const before = await scriptCalls(admin);
    expect(await statusesFrom('10.1.2.3', 3)).toEqual([200, 200, 200]);
    expect(await statusesFrom('2001:db8:5::9', 3)).toEqual([200, 200, 200]);
    expect(await statusesFrom('192.0.2.77', 3)).toEqual([200, 200, 200]);
    expect(await scriptCalls(admin)).toBe(before);
    expect(await admin.keys('*')).toEqual([]);
    expect(events.map((event) => [event.outcome, event.name])).toEqual(
      Array.from({ length: 9 }, () => ['skipped', 'one']),
    );
  });

  it('limits a plain client as usual', async () => {
    expect(await statusesFrom('198.51.100.4', 2)).toEqual([200, 429]);
    expect(await statusesFrom('2001:db9:cd00::1', 2)).toEqual([200, 429]);
    expect(await statusesFrom('192.0.2.78', 2)).toEqual([200, 429]);
  });

  it('refuses a denied network with 403 before any limit is counted', async () => {
    const admin = redis.client();
    const before = await scriptCalls(admin);
    const keysBefore = (await admin.keys('*')).sort();
    // 10.66.0.0/16 is inside the allowed 10.0.0.0/8: deny wins.
    for (const address of ['203.0.113.9', '2001:db9:ab12::7', '10.66.1.1']) {
      const reply = await from(address);
      expect([reply.status, reply.body]).toEqual([403, { statusCode: 403, message: 'Forbidden' }]);
      expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect((await from('203.0.113.9', '/net/open')).status).toBe(403);
    expect(await scriptCalls(admin)).toBe(before);
    expect((await admin.keys('*')).sort()).toEqual(keysBefore);
    expect(events).toEqual([]);
  });

  it('reads the address as IP keys do (req.ip behind the trusted proxy)', async () => {
    // Behind a trusted proxy the client is the first address; an allowed one further right
    // (added by a proxy) does not exempt it.
    expect(await statusesFrom('198.51.100.99, 10.0.0.1', 2)).toEqual([200, 429]);
  });
});
