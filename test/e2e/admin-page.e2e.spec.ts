import { INestApplication } from '@nestjs/common';
import { RateLimiterAdminModule } from '../../src';
import {
  ADMIN_HEADERS,
  adminCall,
  failLogin,
  hit,
  HIT_LIMIT,
  hitKey,
  LOGIN_LIMIT,
  loginKey,
  startAdminApp,
} from '../helpers/admin-app';
import { call, PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

describe.each(PLATFORMS)('the admin page and its API on %s', (platform) => {
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

  it('answers 403 to a caller its guard refuses, on the page and on every route of the API', async () => {
    const routes = [
      ['GET', ''],
      ['GET', 'api/top'],
      ['GET', 'api/blocked'],
      ['POST', 'api/peek'],
      ['POST', 'api/reset'],
      ['POST', 'api/unblock'],
      ['GET', 'api/overrides'],
      ['PUT', 'api/overrides/perIp'],
      ['DELETE', 'api/overrides/perIp'],
      ['GET', 'api/networks'],
      ['PUT', 'api/networks'],
      ['GET', 'api/overload'],
      ['GET', 'api/upstreams'],
    ];
    const body = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.9') };
    const statuses = await Promise.all(
      routes.map(
        async ([method, path]) =>
          (
            await call(port, {
              method,
              path: path ? `/rate-limits/${path}` : '/rate-limits',
              json: method === 'POST' || method === 'PUT' ? body : undefined,
            })
          ).status,
      ),
    );
    expect(statuses).toEqual(routes.map(() => 403));
  });

  it('marks every answer no-store and nosniff: pages, reads, writes, refusals and errors', async () => {
    const ref = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.8') };
    const replies = await Promise.all([
      call(port, { path: '/rate-limits', headers: ADMIN_HEADERS }),
      adminCall(port, 'GET', 'api/top'),
      adminCall(port, 'POST', 'api/peek', ref),
      adminCall(port, 'POST', 'api/reset', ref),
      adminCall(port, 'POST', 'api/unblock', ref),
      adminCall(port, 'PUT', 'api/overrides/perIp', { options: { limit: 2 }, ttl: 60 }),
      adminCall(port, 'DELETE', 'api/overrides/perIp'),
      adminCall(port, 'PUT', 'api/networks', {}),
      adminCall(port, 'POST', 'api/reset', { ...ref, key: 'not-a-key' }),
      call(port, { path: '/rate-limits/api/top' }),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([
      200, 200, 200, 200, 200, 200, 204, 200, 400, 403,
    ]);
    for (const reply of replies) {
      expect([reply.headers['cache-control'], reply.headers['x-content-type-options']]).toEqual([
        'no-store',
        'nosniff',
      ]);
    }
    expect(replies[0].headers['content-security-policy']).toContain("base-uri 'none'");
  });

  it('serves the page, self-contained, to a caller its guard lets in', async () => {
    const reply = await call(port, { path: '/rate-limits', headers: ADMIN_HEADERS });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['content-security-policy']).toMatch(/^default-src 'none';/);
    expect(reply.body).toContain('<title>Rate limits</title>');
    // No asset from anywhere: the machine may have no internet.
    expect(reply.body).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
  });

  it('lists the most denied keys with their counts, and the keys blocked now', async () => {
    // 127.0.0.2: 2 allowed, then 3 denied; 127.0.0.3: 2 allowed, then 1 denied.
    const first = [];
    for (let i = 0; i < 5; i++) first.push(await hit(port, '127.0.0.2'));
    for (let i = 0; i < 3; i++) first.push(await hit(port, '127.0.0.3'));
    expect(first).toEqual([200, 200, 429, 429, 429, 200, 200, 429]);

    const top = await adminCall(port, 'GET', 'api/top?minutes=5');
    expect(top.status).toBe(200);
    expect(top.body).toEqual({
      minutes: 5,
      keys: [
        { key: hitKey('127.0.0.2'), limit: HIT_LIMIT, name: 'perIp', count: 3 },
        { key: hitKey('127.0.0.3'), limit: HIT_LIMIT, name: 'perIp', count: 1 },
      ],
    });
    // Kept in Redis for every server: one sorted set per minute.
    const minuteKeys = await redis.client().keys('admin:denied:*');
    expect(minuteKeys.length).toBeGreaterThanOrEqual(1);

    const blocked = await adminCall(port, 'GET', 'api/blocked');
    expect(blocked.status).toBe(200);
    const rows = (blocked.body.keys as { key: string; blockedMs: number }[]).sort((a, b) =>
      a.key.localeCompare(b.key),
    );
    expect(rows.map((row) => row.key)).toEqual([hitKey('127.0.0.2'), hitKey('127.0.0.3')]);
    for (const row of rows) {
      expect(row.blockedMs).toBeGreaterThan(55_000);
      expect(row.blockedMs).toBeLessThanOrEqual(60_000);
    }
  });

  it('peeks at a key, unblocks it and resets another: their next requests pass', async () => {
    const ref = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.2') };
    const peek = await adminCall(port, 'POST', 'api/peek', ref);
    expect(peek.status).toBe(200);
    expect(peek.body).toMatchObject({ limit: 2, remaining: 0 });
    expect(peek.body.blockedMs).toBeGreaterThan(55_000);

    expect(await hit(port, '127.0.0.2')).toBe(429);
    const unblock = await adminCall(port, 'POST', 'api/unblock', ref);
    expect(unblock.status).toBe(200);
    expect(unblock.body).toEqual({ unblocked: hitKey('127.0.0.2') });
    expect(await hit(port, '127.0.0.2')).toBe(200);
    const after = await adminCall(port, 'POST', 'api/peek', ref);
    expect(after.body).toEqual({
      limit: 2,
      remaining: 1,
      resetMs: after.body.resetMs,
      blockedMs: 0,
    });

    const other = { ...ref, key: hitKey('127.0.0.3') };
    expect((await adminCall(port, 'POST', 'api/reset', other)).body).toEqual({
      reset: hitKey('127.0.0.3'),
    });
    expect([await hit(port, '127.0.0.3'), await hit(port, '127.0.0.3')]).toEqual([200, 200]);
    // Neither is blocked now.
    expect((await adminCall(port, 'GET', 'api/blocked')).body).toEqual({ keys: [] });
  });

  it('answers 4xx to requests it cannot act on, never 500, and never touches another key', async () => {
    const ref = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.2') };
    const replies = await Promise.all([
      adminCall(port, 'POST', 'api/reset', { ...ref, key: 'admin:overrides' }),
      adminCall(port, 'POST', 'api/peek', { ...ref, key: 'session:alice' }),
      adminCall(port, 'POST', 'api/peek', { ...ref, name: 'nope' }),
      adminCall(port, 'POST', 'api/peek', { limit: HIT_LIMIT }),
      adminCall(port, 'POST', 'api/peek', [1, 2]),
      adminCall(port, 'GET', 'api/top?minutes=abc'),
      adminCall(port, 'GET', 'api/top?minutes=99'),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 404, 400, 400, 400, 400]);
    expect(replies[0].body.message).toBe(`'admin:overrides' is not a key of ${HIT_LIMIT}`);
  });

  it('refuses a body that is not JSON, as a form on another site would send (415)', async () => {
    const form = new URLSearchParams({ limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.7') });
    const replies = await Promise.all(
      ['api/unblock', 'api/reset', 'api/peek'].map((path) =>
        call(port, {
          method: 'POST',
          path: `/rate-limits/${path}`,
          headers: { ...ADMIN_HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([415, 415, 415]);
  });
});

describe.each(PLATFORMS)('the admin API on %s while Redis is down', (platform) => {
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

  it('answers the admin under a deny list that covers it, and lets the admin undo the list', async () => {
    // The admin's routes answer to its guard alone, not to the allow and deny networks.
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

  it("lists a key locked out by a count: 'failures' limit as blocked, until its window ends", async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await failLogin(port, '127.0.0.7'));
    expect(statuses).toEqual([401, 401, 429]);
    const blocked = (await adminCall(port, 'GET', 'api/blocked')).body.keys as {
      key: string;
      blockedMs: number;
    }[];
    const row = blocked.find((candidate) => candidate.key === loginKey('127.0.0.7'));
    expect(row).toMatchObject({ limit: LOGIN_LIMIT, name: 'failedLogins' });
    expect(row!.blockedMs).toBeGreaterThan(50_000);
    expect(row!.blockedMs).toBeLessThanOrEqual(60_000);
    const ref = { limit: LOGIN_LIMIT, name: 'failedLogins', key: loginKey('127.0.0.7') };
    expect((await adminCall(port, 'POST', 'api/unblock', ref)).status).toBe(200);
    expect(await failLogin(port, '127.0.0.7')).toBe(401);
  });

  it('answers 503, never 500', async () => {
    expect([await hit(port, '127.0.0.6'), await hit(port, '127.0.0.6')]).toEqual([200, 200]);
    await redis.kill();
    const ref = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.6') };
    const replies = await Promise.all([
      adminCall(port, 'GET', 'api/top'),
      adminCall(port, 'GET', 'api/blocked'),
      adminCall(port, 'POST', 'api/peek', ref),
      adminCall(port, 'POST', 'api/reset', ref),
      adminCall(port, 'PUT', 'api/overrides/perIp', { options: { limit: 5 }, ttl: 60 }),
      adminCall(port, 'PUT', 'api/networks', { allow: ['10.0.0.0/8'] }),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([503, 503, 503, 503, 503, 503]);
  });
});

describe('the admin page on the in-memory store', () => {
  let app: INestApplication;
  let port: number;
  beforeAll(async () => ({ app, port } = await startAdminApp('express', {})));
  afterAll(() => app?.close());

  it('counts denials in memory', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await hit(port, '127.0.0.4'));
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect((await adminCall(port, 'GET', 'api/top')).body).toEqual({
      minutes: 5,
      keys: [{ key: hitKey('127.0.0.4'), limit: HIT_LIMIT, name: 'perIp', count: 2 }],
    });
    const ref = { limit: HIT_LIMIT, name: 'perIp', key: hitKey('127.0.0.4') };
    expect((await adminCall(port, 'POST', 'api/unblock', ref)).status).toBe(200);
    expect(await hit(port, '127.0.0.4')).toBe(200);
  });
});

describe('start-up without a guard', () => {
  const message =
    "RateLimiterAdminModule.forRoot: option 'guards' must list at least one guard (the admin page shows keys, IPs and user ids, and can reset limits): forRoot({ path: 'rate-limits', guards: [AdminGuard] })";

  it('is refused, with or without a guards option', () => {
    expect(() => RateLimiterAdminModule.forRoot({ path: 'rate-limits', guards: [] })).toThrow(
      message,
    );
    expect(() => RateLimiterAdminModule.forRoot({ path: 'rate-limits' } as never)).toThrow(message);
  });

  it('refuses a guard that is neither a class nor a guard object, and a bad path', () => {
    expect(() => RateLimiterAdminModule.forRoot({ guards: [42 as never] })).toThrow(
      "RateLimiterAdminModule.forRoot: option 'guards[0]' must be a guard class or an object with canActivate, got 42",
    );
    expect(() =>
      RateLimiterAdminModule.forRoot({ path: '../x y', guards: [{ canActivate: () => true }] }),
    ).toThrow("option 'path' must be a URL path");
  });
});
