import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const MINUTES = 60_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A store without an injected clock decides on Redis's: an app server whose wall clock is
 * minutes off (NTP not run, a VM resumed) still holds slots for their lease and gives
 * leased permits back to the window they were taken in, as every other server sees them.
 */
describe('an app whose clock is minutes off', () => {
  let server: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  let factory: RateLimiterFactory;
  const realNow = Date.now.bind(Date);
  let run = 0;
  const key = (name: string) => `skew:${++run}:${name}`;

  const skew = (ms: number) => jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ms);
  /** Redis's TIME in µs. */
  const redisMicros = async () => {
    const [seconds, micros] = await admin.time();
    return Number(seconds) * 1_000_000 + Number(micros);
  };

  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
  });
  beforeEach(async () => {
    store = new RedisStore({ client: server.client(), ownsClient: true });
    await store.check();
    factory = new RateLimiterFactory(store);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
  });
  afterAll(() => server.stop());

  it.each([
    ['ahead', 10 * MINUTES],
    ['behind', -10 * MINUTES],
  ])('a slot taken by an app 10 minutes %s ends one lease from Redis TIME', async (_, off) => {
    const name = key('slot');
    const limiter = factory.concurrencyLimiter({ key: name, prefix: '', max: 2, lease: 60 });
    skew(off);
    const before = await redisMicros();
    const slot = await limiter.tryAcquire();
    const after = await redisMicros();
    expect(slot?.decision).toMatchObject({ allowed: true, remaining: 1, resetMs: 60_000 });
    const [member, score] = await admin.zrange(name, '0', '-1', 'WITHSCORES');
    expect(member).toBe(slot!.id);
    expect(Number(score)).toBeGreaterThanOrEqual(before + 60_000_000);
    expect(Number(score)).toBeLessThanOrEqual(after + 60_000_000);
    const ttl = await admin.pttl(name);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('a slot taken 10 minutes behind and judged 10 minutes ahead holds for its 0.3 s, then frees', async () => {
    const limiter = factory.concurrencyLimiter({ key: key('lease'), max: 1, lease: 0.3 });
    skew(-10 * MINUTES);
    const taken = realNow();
    expect(await limiter.tryAcquire()).not.toBeNull();
    // On the app's clock the slot would be 20 minutes gone (one taken ahead and judged behind
    // is no proof: a lease ending past one lease from now is cut to it).
    skew(10 * MINUTES);
    const denied = await limiter.decide('waiting');
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(200);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(300);
    // Past the lease on Redis's clock (and on the real one), whatever the app's says.
    await pause(Math.max(0, 320 - (realNow() - taken)));
    expect(await limiter.tryAcquire()).not.toBeNull();
  });

  it('leased permits given back at close land in the window they were taken in', async () => {
    const name = key('count');
    const limiter = factory.countLimiter({
      key: name,
      prefix: '',
      limit: 1000,
      period: 600,
      lease: 100,
    });
    // Ten minutes: the give-back's window would be a whole period off on the app's clock.
    skew(10 * MINUTES);
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect(await admin.get(name)).toBe('100');
    await store.close();
    expect(await admin.get(name)).toBe('10');
  });
});
