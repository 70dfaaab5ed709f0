import { Decision, LimiterStore } from '../../src';
import { LimitKind } from '../../src/algorithms/limit-kind';
import { rateLimitKind } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { leakyBucketLimitKind } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { storesBeforeAndAfter } from '../helpers/stores-before-after';

/**
 * The buckets and the blocks under older options: a state written under a slower rate, a
 * longer timeout or a longer block is cut to the current options at the next decision, and
 * one written under the same options (a settled debt, a block set by hand) is kept whole.
 * On Redis the correction is a restart (a new store on the same server); in memory, options
 * resolved per request share one partition per algorithm, as the guard passes them.
 */
const START_MS = 1_795_000_000_000;
let server: RedisServer;
let nowMs = START_MS;
const now = () => nowMs;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server.stop());
beforeEach(() => {
  nowMs = START_MS;
});

type Options = Record<string, unknown>;
/** One limit's operations on a key, as the guard (and a factory limiter's `block`) run them. */
interface Limit {
  decide(cost?: number): Promise<Decision>;
  /** A settled cost above the reservation: the excess charged. */
  charge(permits: number): Promise<Decision>;
  /** A block set by hand (a factory limiter's `block(seconds)`). */
  blockFor(seconds: number): Promise<Decision>;
  /** A token bucket's request of a factory limiter's call (`decide(permits, timeout)`). */
  call(permits: number, timeoutSeconds: number): Promise<Decision>;
}
type LimitOn = (kind: LimitKind, options: Options, key: string) => Limit;

const partitions = new Map<LimitKind, object>();
function limitsOn(store: LimiterStore): LimitOn {
  return (kind, options, key) => {
    const run = kind.compile(options, 'test');
    if (!partitions.has(kind)) partitions.set(kind, { kind: kind.name });
    const partition = partitions.get(kind);
    const on = (algorithm: unknown, request: unknown) =>
      store.evaluate({
        algorithm: algorithm as never,
        key,
        params: run.params,
        request,
        partition,
      });
    return {
      decide: (cost) => on(run.algorithm, run.newRequest(cost)),
      charge: (permits) => on(run.ops!.charge, { permits }),
      blockFor: (seconds) => on(run.ops!.block, seconds * 1_000_000),
      call: (permits, timeoutSeconds) =>
        on(run.algorithm, { permits, timeoutMicros: timeoutSeconds * 1_000_000 }),
    };
  };
}

/** The app before and after the correction, on the same state. */
const stores = storesBeforeAndAfter(() => server, now, limitsOn);

describe.each(stores)('buckets and blocks under older options, on %s', (name, factories) => {
  const key = (what: string) => `older:${what}:${name}`;

  it('a token bucket reserved 10,000 s ahead at one per 100 s, corrected to one a second, owes only its timeout', async () => {
    const [before, after] = factories();
    const options = { rate: 0.01, capacity: 1, timeout: 10_000 };
    const old = before(rateLimitKind, options, key('reserved'));
    expect(await old.decide()).toMatchObject({ allowed: true, waitMs: 0 });
    expect(await old.decide(100)).toMatchObject({ allowed: true, waitMs: 10_000_000 });

    const corrected = after(rateLimitKind, { ...options, rate: 1, timeout: 10 }, key('reserved'));
    // No more is owed than this request may wait for: 10 s, then its own permit.
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 1_000 });
    nowMs += 1_000;
    expect(await corrected.decide()).toMatchObject({ allowed: true, waitMs: 10_000 });
  });

  it('a reservation of a decorator of timeout 10000, corrected to 10, owes only 10 s', async () => {
    const [before, after] = factories();
    const old = before(rateLimitKind, { rate: 1, capacity: 1, timeout: 10_000 }, key('typo'));
    expect(await old.decide()).toMatchObject({ allowed: true, waitMs: 0 });
    expect(await old.decide(9_000)).toMatchObject({ allowed: true, waitMs: 9_000_000 });

    const corrected = after(rateLimitKind, { rate: 1, capacity: 1, timeout: 10 }, key('typo'));
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 1_000 });
    nowMs += 1_000;
    expect(await corrected.decide()).toMatchObject({ allowed: true, waitMs: 10_000 });
  });

  it("a factory call's reservation on a decorator's bucket is owed whatever the timeouts", async () => {
    const [before, after] = factories();
    const options = { rate: 1, capacity: 1, timeout: 10 };
    const decorator = before(rateLimitKind, options, key('shared'));
    expect(await decorator.decide()).toMatchObject({ allowed: true, waitMs: 0 });
    // A factory limiter's call with its own timeout (a queue worker), on the same bucket.
    expect(await decorator.call(50, 100)).toMatchObject({ allowed: true, waitMs: 50_000 });
    const again = after(rateLimitKind, options, key('shared'));
    expect(await again.decide()).toMatchObject({ allowed: false, retryAfterMs: 41_000 });
    expect(await again.call(1, 60)).toMatchObject({ allowed: true, waitMs: 51_000 });
  });

  it("a token bucket's debt charged at one per 10000 s, corrected to one per 10 s, is owed no longer", async () => {
    const [before, after] = factories();
    const slow = before(rateLimitKind, { rate: 0.0001, capacity: 1 }, key('rate'));
    expect(await slow.decide()).toMatchObject({ allowed: true });
    await slow.charge(4);
    expect(await slow.decide()).toMatchObject({ allowed: false, retryAfterMs: 50_000_000 });

    const corrected = after(rateLimitKind, { rate: 0.1, capacity: 1 }, key('rate'));
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    nowMs += 9_999;
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 1 });
    nowMs += 1;
    expect(await corrected.decide()).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("a token bucket's settled debt under the same options is kept whole", async () => {
    const [before, after] = factories();
    const options = { rate: 0.1, capacity: 1, timeout: 5 };
    const first = before(rateLimitKind, options, key('settled'));
    expect(await first.decide()).toMatchObject({ allowed: true });
    await first.charge(100);
    const again = after(rateLimitKind, options, key('settled'));
    // 100 permits owed at one per 10 s, then one more, less the 5 s it may wait.
    expect(await again.decide()).toMatchObject({ allowed: false, retryAfterMs: 1_005_000 });
    nowMs += 1_005_000;
    expect(await again.decide()).toMatchObject({ allowed: true, waitMs: 5_000 });
  });

  it('a leaky bucket filled at one per 10000 s, corrected to one per 10 s, drains in 10 s', async () => {
    const [before, after] = factories();
    const slow = before(leakyBucketLimitKind, { capacity: 1, rate: 0.0001 }, key('leaky'));
    expect(await slow.decide()).toMatchObject({ allowed: true });
    expect(await slow.decide()).toMatchObject({ allowed: false, retryAfterMs: 10_000_000 });

    const corrected = after(leakyBucketLimitKind, { capacity: 1, rate: 0.1 }, key('leaky'));
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    nowMs += 9_999;
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 1 });
    nowMs += 1;
    expect(await corrected.decide()).toMatchObject({ allowed: true, resetMs: 10_000 });
  });

  it("a leaky bucket's settled debt under the same options is kept whole", async () => {
    const [before, after] = factories();
    const options = { capacity: 2, rate: 0.1 };
    const first = before(leakyBucketLimitKind, options, key('leaky-settled'));
    expect(await first.decide()).toMatchObject({ allowed: true });
    await first.charge(30);
    const again = after(leakyBucketLimitKind, options, key('leaky-settled'));
    // 31 requests' drain (310 s), less the 10 s a second one may wait in a bucket of 2.
    expect(await again.decide()).toMatchObject({ allowed: false, retryAfterMs: 300_000 });
  });

  it('a block of 3600 s after a denial, corrected to 10 s, ends 10 s from the next decision', async () => {
    const [before, after] = factories();
    const old = before(rateLimitKind, { rate: 0.1, capacity: 1, block: 3600 }, key('block'));
    expect(await old.decide()).toMatchObject({ allowed: true });
    expect(await old.decide()).toMatchObject({ allowed: false, retryAfterMs: 3_600_000 });

    const corrected = after(rateLimitKind, { rate: 0.1, capacity: 1, block: 10 }, key('block'));
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    nowMs += 5_000;
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 5_000 });
    nowMs += 5_000;
    expect(await corrected.decide()).toMatchObject({ allowed: true });

    const unblocked = before(rateLimitKind, { rate: 0.1, capacity: 1, block: 3600 }, key('free'));
    await unblocked.decide();
    await unblocked.decide();
    // The block option gone: a denial block is cut to none, and the bucket decides.
    const none = after(rateLimitKind, { rate: 0.1, capacity: 1 }, key('free'));
    expect(await none.decide()).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
  });

  it('an escalated block of 10 h, corrected to steps of 10 s and 1 m, is cut to the step of its level', async () => {
    const [before, after] = factories();
    const steps = before(
      leakyBucketLimitKind,
      { capacity: 1, rate: 1, block: ['1h', '10h'] },
      key('steps'),
    );
    expect(await steps.decide()).toMatchObject({ allowed: true });
    expect(await steps.decide()).toMatchObject({ allowed: false, retryAfterMs: 3_600_000 });
    nowMs += 3_600_000;
    expect(await steps.decide()).toMatchObject({ allowed: true });
    expect(await steps.decide()).toMatchObject({ allowed: false, retryAfterMs: 36_000_000 });

    const corrected = after(
      leakyBucketLimitKind,
      { capacity: 1, rate: 1, block: ['10s', '1m'] },
      key('steps'),
    );
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    nowMs += 60_000;
    expect(await corrected.decide()).toMatchObject({ allowed: true });
  });

  it('a block set by hand for an hour is kept whatever the block option', async () => {
    const [before, after] = factories();
    const options = { rate: 0.1, capacity: 1, block: 3600 };
    await before(rateLimitKind, options, key('by-hand')).blockFor(3600);
    const corrected = after(rateLimitKind, { ...options, block: 10 }, key('by-hand'));
    expect(await corrected.decide()).toMatchObject({ allowed: false, retryAfterMs: 3_600_000 });
    nowMs += 3_600_000;
    expect(await corrected.decide()).toMatchObject({ allowed: true });
  });
});
