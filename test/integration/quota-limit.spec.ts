import { LimiterConfigError, RateLimiterFactory } from '../../src';
import { useFactoriesOnClock } from '../helpers/factories-on-clock';
import { startRedisServer } from '../helpers/redis-server';
import { MemoryStore, RedisStore } from '../../src';

// Billing day 31 in New York: Jan 31, Feb 28, Mar 31 (DST starts Mar 8 2026), Apr 30.
const JAN_31 = Date.UTC(2026, 0, 31, 5); // midnight EST
const FEB_28 = Date.UTC(2026, 1, 28, 5);
const MAR_31 = Date.UTC(2026, 2, 31, 4); // midnight EDT
const APR_30 = Date.UTC(2026, 3, 30, 4);

const clock = useFactoriesOnClock(Date.UTC(2026, 1, 10, 12));

const billing = { limit: 3, cycle: 'month', timeZone: 'America/New_York', anchor: 31 } as const;

describe.each(clock.stores)('calendar quota on %s', (_name, newFactory) => {
  let factory: RateLimiterFactory;
  let n = 0;
  beforeEach(() => {
    factory = newFactory();
    clock.nowMs = Date.UTC(2026, 1, 10, 12);
  });
  const key = () => `customer-${++n}`;

  it('allows `limit` per billing cycle and denies until the next cycle starts', async () => {
    const quota = factory.quota({ key: key(), ...billing });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await quota.consume());
    expect(answers.map((a) => [a.allowed, a.used, a.remaining])).toEqual([
      [true, 1, 2],
      [true, 2, 1],
      [true, 3, 0],
      [false, 3, 0],
    ]);
    const denied = answers[3];
    expect([denied.cycleStart, denied.resetsAt]).toEqual([JAN_31, FEB_28]);
    expect(denied.retryAfterMs).toBe(FEB_28 - clock.nowMs);
    expect(denied.resetMs).toBe(FEB_28 - clock.nowMs);
    clock.nowMs = FEB_28 - 1;
    expect((await quota.consume()).allowed).toBe(false);
    clock.nowMs = FEB_28;
    const next = await quota.consume();
    expect([next.allowed, next.used, next.cycleStart, next.resetsAt]).toEqual([
      true,
      1,
      FEB_28,
      MAR_31,
    ]);
    clock.nowMs = MAR_31 + 1;
    expect(await quota.usage()).toEqual({
      used: 0,
      limit: 3,
      remaining: 3,
      cycleStart: MAR_31,
      resetsAt: APR_30,
    });
  });

  it('takes several permits at once and never more than the cycle holds', async () => {
    const quota = factory.quota({ key: key(), ...billing });
    expect((await quota.consume(2)).used).toBe(2);
    const denied = await quota.consume(2);
    expect([denied.allowed, denied.used, denied.remaining]).toEqual([false, 2, 1]);
    expect((await quota.consume(4)).retryAfterMs).toBe(-1);
    expect((await quota.usage()).used).toBe(2);
  });

  it('credits this cycle only', async () => {
    const quota = factory.quota({ key: key(), ...billing });
    for (let i = 0; i < 3; i++) await quota.consume();
    expect(await quota.credit(2)).toMatchObject({ used: 3, limit: 5, remaining: 2 });
    expect((await quota.consume(2)).allowed).toBe(true);
    expect((await quota.consume()).allowed).toBe(false);
    clock.nowMs = FEB_28;
    expect(await quota.usage()).toMatchObject({ used: 0, limit: 3, remaining: 3 });
  });

  it('charges an idempotency key once per cycle and answers a repeat as the first', async () => {
    const quota = factory.quota({ key: key(), ...billing });
    const first = await quota.consume(1, { idempotencyKey: 'req-1' });
    await quota.consume(1, { idempotencyKey: 'req-2' });
    const again = await quota.consume(1, { idempotencyKey: 'req-1' });
    expect([first.repeated, again.repeated]).toEqual([false, true]);
    expect([again.allowed, again.used, again.remaining]).toEqual([true, 1, 2]);
    expect((await quota.usage()).used).toBe(2);
    clock.nowMs = FEB_28;
    expect((await quota.consume(1, { idempotencyKey: 'req-1' })).repeated).toBe(false);
    expect((await quota.usage()).used).toBe(1);
  });

  it('tells the soft limit once per cycle, on the request that reaches it', async () => {
    const quota = factory.quota({ key: key(), ...billing, limit: 10, softLimit: 0.8 });
    const reached: number[] = [];
    for (let i = 1; i <= 11; i++) {
      if ((await quota.consume()).softLimitReached) reached.push(i);
    }
    await quota.credit(5);
    for (let i = 1; i <= 3; i++) if ((await quota.consume()).softLimitReached) reached.push(99);
    clock.nowMs = FEB_28;
    await quota.consume(7);
    expect((await quota.consume(2)).softLimitReached).toBe(true);
    expect(reached).toEqual([8]);
  });
});

describe('calendar quota options', () => {
  const factory = new RateLimiterFactory(new MemoryStore());
  it.each([
    [{ cycle: 'fortnight' }, "option 'cycle' must be one of 'day', 'week', 'month', 'year'"],
    [{ timeZone: 'Mars/Olympus' }, "option 'timeZone' must be an IANA time zone"],
    [{ anchor: 32 }, "option 'anchor' must be a day of the month from 1 to 31"],
    [
      { anchor: '2026-02-30T09:00' },
      "option 'anchor' must be a day of the month from 1 to 31, or an ISO",
    ],
    [{ anchor: 'tomorrow' }, "option 'anchor' must be"],
    [{ cycle: 'week', anchor: 3 }, "option 'anchor' must be an ISO date-time for cycle 'week'"],
    [{ softLimit: 11 }, "option 'softLimit' must be a fraction of the limit"],
    [{ weekStart: 8 }, "option 'weekStart' must be an ISO weekday"],
    [{ limit: 0 }, "option 'limit' must be an integer >= 1"],
  ])('refuses %j naming the option', (wrong, message) => {
    const create = () => factory.quota({ key: 'k', limit: 10, cycle: 'month', ...wrong } as never);
    expect(create).toThrow(LimiterConfigError);
    expect(create).toThrow(`quotaLimiter: ${message}`);
  });
});

describe('calendar quota state in Redis', () => {
  it('keeps one key per quota key, at most 120 bytes with a 40-character key', async () => {
    const server = await startRedisServer();
    const client = server.client();
    const store = new RedisStore({ client });
    try {
      const factory = new RateLimiterFactory(store);
      const key = 'c'.repeat(40 - 'quota:'.length);
      const quota = factory.quota({
        key,
        limit: 1_000_000_000,
        cycle: 'month',
        anchor: 31,
        softLimit: 0.5,
      });
      const bytes = async () => Number(await client.call('MEMORY', 'USAGE', `quota:${key}`));
      const sizes: number[] = [];
      await quota.consume(250_000);
      sizes.push(await bytes());
      // Past the soft limit, with a credit, and 999,999,999 used: the longest state it writes.
      await quota.consume(999_749_999);
      await quota.credit(1_000);
      sizes.push(await bytes());
      expect(await client.keys('*')).toEqual([`quota:${key}`]);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(120);
      const ttl = await client.pttl(`quota:${key}`);
      expect(Math.abs(Date.now() + ttl - (await quota.usage()).resetsAt)).toBeLessThan(5_000);
      expect(await quota.usage()).toMatchObject({ used: 999_999_999, limit: 1_000_001_000 });
    } finally {
      await store.close();
      await server.stop();
    }
  });
});
