import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule, RateLimiterModuleOptions, RateLimitEvent } from '../../src';
import { clusterSlot } from '../../src/stores/redis/engine/cluster-slot';
import { burst } from '../helpers/burst';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { ProxyRules, RespProxy, startRespProxy } from '../helpers/resp-proxy';

const LIMIT = 5;
const REQUESTS = 40;

/** Two limits on one handler: their keys hash to two slots, all or nothing across them. */
@Controller()
class TwoLimitsController {
  @Get('two')
  @CountLimit({ name: 'first', key: 'first:#{query.k}', limit: LIMIT, period: 60 })
  @CountLimit({ name: 'second', key: 'second:#{query.k}', limit: LIMIT, period: 60 })
  two() {
    return 'ok';
  }

  @Get('uneven')
  @CountLimit({ name: 'wide', key: 'wide:#{query.k}', limit: LIMIT, period: 60 })
  @CountLimit({ name: 'narrow', key: 'narrow:#{query.k}', limit: 3, period: 60 })
  uneven() {
    return 'ok';
  }
}

const SWITCHED = /refused a script across hash slots .*one call per hash slot/;

describe('behind an endpoint that refuses scripts whose keys hash to several slots', () => {
  let redis: RedisServer;
  let proxy: RespProxy;
  let app: INestApplication;
  let port: number;
  let logger: CaptureLogger;
  let events: RateLimitEvent[];
  let rules: ProxyRules;

  async function boot(options: Partial<RateLimiterModuleOptions> = {}) {
    proxy = await startRespProxy(redis.port, rules);
    logger = new CaptureLogger();
    events = [];
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          redis: proxy.url,
          onDecision: (event) => events.push(event),
          // Exact counts hold while Redis answers within storeTimeout; a generous one keeps a
          // starved machine from failing open ('allow') in tests about how Redis is called.
          storeTimeout: 2000,
          ...options,
        }),
      ],
      controllers: [TwoLimitsController],
    })
    class ProxiedModule {}
    ({ app, port } = await startApp(ProxiedModule, 'express', logger));
  }

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await app?.close();
    await proxy?.close();
    await redis.client().flushall();
  });
  afterAll(() => redis.stop());

  const storeErrors = () => events.filter((event) => event.outcome === 'store-error').length;

  it('the two limits’ keys are in two slots (what the endpoint refuses together)', () => {
    expect(clusterSlot('countLimit:first:a')).not.toBe(clusterSlot('countLimit:second:a'));
  });

  it(`${REQUESTS} requests at once on a limit of ${LIMIT}: exactly ${LIMIT} allowed, no store error`, async () => {
    rules = { crossSlotScripts: true };
    await boot();
    const PROBED = /refuses scripts across hash slots \(keys of two slots in one script\)/;
    expect(await eventually(async () => logger.count('warn', PROBED), 1)).toBe(1);
    expect(await burst(port, '/two?k=a', REQUESTS)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(storeErrors()).toBe(0);
    // Found by the probe at start-up: no decision was refused.
    expect(proxy.refused.crossSlotScripts).toBe(1);
    expect(logger.count('warn', /across hash slots/)).toBe(1);
  });

  it('an endpoint that starts refusing at run time: the store switches, retries, logs once', async () => {
    rules = {};
    await boot();
    expect(await burst(port, '/two?k=b', 3)).toEqual({ 200: 3 });
    expect(logger.count('warn', /across hash slots/)).toBe(0);
    rules.crossSlotScripts = true;
    expect(await burst(port, '/two?k=a', REQUESTS)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(await burst(port, '/two?k=c', REQUESTS)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(storeErrors()).toBe(0);
    // The calls in flight when the endpoint began to refuse (at most 2 per connection).
    expect(proxy.refused.crossSlotScripts).toBeGreaterThanOrEqual(1);
    expect(proxy.refused.crossSlotScripts).toBeLessThanOrEqual(2);
    expect(logger.count('warn', SWITCHED)).toBe(1);
  });

  it('all or nothing across slots: a request the narrower limit denies keeps nothing of the wider', async () => {
    rules = { crossSlotScripts: true };
    await boot({ redisCalls: 'per-slot' });
    expect(clusterSlot('countLimit:wide:a')).not.toBe(clusterSlot('countLimit:narrow:a'));
    expect(await burst(port, '/uneven?k=a', REQUESTS)).toEqual({ 200: 3, 429: REQUESTS - 3 });
    // What the wide limit took for the denied requests went back at once.
    const admin = redis.client();
    expect(await eventually(() => admin.get('countLimit:wide:a'), '3')).toBe('3');
    expect(await admin.get('countLimit:narrow:a')).toBe('3');
  });

  it('probes again after a reconnect: an endpoint that now takes scripts across slots gets them', async () => {
    rules = { crossSlotScripts: true };
    await boot();
    const PROBED = /refuses scripts across hash slots/;
    expect(await eventually(async () => logger.count('warn', PROBED), 1)).toBe(1);
    rules.crossSlotScripts = false;
    proxy.dropConnections();
    const AGAIN = /takes scripts across hash slots: one call per connection/;
    expect(await eventually(async () => logger.count('log', AGAIN), 1, 5_000)).toBe(1);
    expect(await burst(port, '/two?k=a', REQUESTS)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(storeErrors()).toBe(0);
  });

  it("redisCalls: 'per-slot' never sends a script across slots, without a probe", async () => {
    rules = { crossSlotScripts: true };
    await boot({ redisCalls: 'per-slot' });
    expect(await burst(port, '/two?k=a', REQUESTS)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    expect(proxy.refused.crossSlotScripts).toBe(0);
    expect(storeErrors()).toBe(0);
  });
});
