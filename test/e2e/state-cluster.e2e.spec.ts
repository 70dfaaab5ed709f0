import {
  Body,
  Controller,
  Get,
  HttpCode,
  INestApplication,
  Module,
  Post,
  UnauthorizedException,
} from '@nestjs/common';
import { Cluster } from 'ioredis';
import {
  CountLimit,
  RateLimit,
  RateLimiterFactory,
  RateLimiterModule,
  RedisStore,
} from '../../src';
import { eventually } from '../helpers/eventually';
import { call, startApp } from '../helpers/http';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class ClusterStateController {
  @Post('login')
  @HttpCode(200)
  @CountLimit({ key: 'login:#{body.user}', limit: 5, period: 60, count: 'failures' })
  login(@Body() body: { user: string; password: string }) {
    if (body.password !== 'right') throw new UnauthorizedException();
    return { ok: true };
  }

  @Post('code')
  @HttpCode(200)
  @CountLimit({ key: 'code:#{body.user}', limit: 2, period: 1, block: 3 })
  code() {
    return 'ok';
  }

  @Get('both')
  @RateLimit({ key: 'both:#{query.k}', rate: 1 / 6, burst: 60 })
  @CountLimit({ key: 'both:#{query.k}', limit: 1, period: 60 })
  both() {
    return 'ok';
  }
}

/** On a 3-master Cluster: every block, refund and snapshot stays in its key's slot. */
describe('state you can act on, on a 3-master Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let admin: Cluster;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    admin = cluster.client();
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: cluster.client() })],
      controllers: [ClusterStateController],
    })
    class ClusterStateModule {}
    ({ app, port } = await startApp(ClusterStateModule, 'express'));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  const login = (user: string, password: string) =>
    call(port, { method: 'POST', path: '/login', json: { user, password } });

  it('5 failures a minute: successes never count, the 6th failure gets 429', async () => {
    for (let i = 0; i < 4; i++) expect((await login('alice', 'wrong')).status).toBe(401);
    for (let i = 0; i < 10; i++) expect((await login('alice', 'right')).status).toBe(200);
    expect((await login('alice', 'wrong')).status).toBe(401);
    expect((await login('alice', 'wrong')).status).toBe(429);
  });

  it('a block outlasts the window', async () => {
    const code = () => call(port, { method: 'POST', path: '/code', json: { user: 'dave' } });
    // Three at once: two fit the window of 2 however slow the machine, the third starts the block.
    const sentAt = Date.now();
    const first = await Promise.all([code(), code(), code()]);
    const deniedAt = Date.now();
    expect(first.map((reply) => reply.status).sort()).toEqual([200, 200, 429]);
    await pause(sentAt + 1100 - Date.now()); // the 1 s window is over; the 3 s block is not
    const still = await code();
    // Decided before this reply came, so before the block's end unless the machine was that slow.
    if (Date.now() < sentAt + 3000) expect(still.status).toBe(429);
    await pause(deniedAt + 3100 - Date.now());
    expect((await code()).status).toBe(200);
  });

  it('after a denial by limit B, limit A’s key (in another slot) holds what it held before', async () => {
    expect(await cluster.masterForKey('rateLimit:both:x')).not.toBe(
      await cluster.masterForKey('countLimit:both:x'),
    );
    expect((await call(port, { path: '/both?k=x' })).status).toBe(200);
    const dump = await admin.dumpBuffer('rateLimit:both:x');
    expect((await call(port, { path: '/both?k=x' })).status).toBe(429);
    expect(await admin.dumpBuffer('rateLimit:both:x')).toEqual(dump);
  });

  it('peek leaves DUMP and expiry unchanged; reset on one server frees the key for another', async () => {
    const serverA = new RateLimiterFactory(new RedisStore({ client: cluster.client() }));
    const serverB = new RateLimiterFactory(new RedisStore({ client: cluster.client() }));
    const onA = serverA.countLimiter({ key: 'reset:erin', limit: 2, period: 60 });
    const onB = serverB.countLimiter({ key: 'reset:erin', limit: 2, period: 60 });
    expect(await onB.tryAcquire()).toBe(true);
    expect(await onB.tryAcquire()).toBe(true);
    const before = [await admin.dumpBuffer(onA.key), await admin.call('PEXPIRETIME', onA.key)];
    expect(await onA.peek()).toMatchObject({ limit: 2, remaining: 0 });
    expect([await admin.dumpBuffer(onA.key), await admin.call('PEXPIRETIME', onA.key)]).toEqual(
      before,
    );
    expect(await onB.tryAcquire()).toBe(false);
    await pause(200); // B now answers this key's denial locally
    await onA.reset();
    expect(await eventually(() => onB.tryAcquire(), true, 1000)).toBe(true);
  });
});
