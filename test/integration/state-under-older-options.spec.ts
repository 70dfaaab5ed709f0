import { Decision, LimiterStore } from '../../src';
import { LimitKind } from '../../src/algorithms/limit-kind';
import { countLimitKind } from '../../src/algorithms/count-limit/count-limit.definition';
import { concurrencyLimitKind } from '../../src/algorithms/concurrency-limit/concurrency-limit.definition';
import { slidingWindowLimitKind } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { approximateSlidingWindowLimitKind } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { storesBeforeAndAfter } from '../helpers/stores-before-after';

/**
 * State written under older options never outlives the current ones: `period: 10000` (meant
 * as 10 s, a 2.8-hour window) corrected to `period: 10` must answer a 10 s retry at the next
 * decision, not the old window's 9,999 s. On Redis the correction is a restart: a new store,
 * as a new process has, on the same server. In memory, state outlives its options where a
 * key's options change while the app runs: options resolved per request (a tenant's plan),
 * whose limits share one partition per algorithm, as the guard passes it.
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

/** Decides a limit of `kind` with `options` on `key`, as the guard does for one request. */
type Decide = (kind: LimitKind, options: Record<string, unknown>, key: string) => Promise<Decision>;

const partitions = new Map<LimitKind, object>();
function decideOn(store: LimiterStore): Decide {
  return (kind, options, key) => {
    const run = kind.compile(options, 'test');
    if (!partitions.has(kind)) partitions.set(kind, { kind: kind.name });
    return store.evaluate({
      algorithm: run.algorithm,
      key,
      params: run.params,
      request: run.newRequest(),
      partition: partitions.get(kind),
    });
  };
}

/** The app before and after the correction, on the same state. */
const stores = storesBeforeAndAfter(() => server, now, decideOn);

describe.each(stores)('state written under older options, on %s', (name, factories) => {
  it('a fixed window of 10000 s corrected to 10 s denies for 10 s, no longer', async () => {
    const [before, after] = factories();
    const key = `older:count:${name}`;
    const old = () => before(countLimitKind, { limit: 2, period: 10_000 }, key);
    expect([(await old()).allowed, (await old()).allowed]).toEqual([true, true]);
    expect((await old()).retryAfterMs).toBeGreaterThan(9_990_000);

    const corrected = () => after(countLimitKind, { limit: 2, period: 10 }, key);
    expect(await corrected()).toMatchObject({
      allowed: false,
      remaining: 0,
      resetMs: 10_000,
      retryAfterMs: 10_000,
    });
    if (name === 'RedisStore') {
      // Redis times the window by its own clock: the key now ends within 10 s.
      const pttl = await server.client().pttl(key);
      expect(pttl).toBeGreaterThan(0);
      expect(pttl).toBeLessThanOrEqual(10_000);
    } else {
      nowMs += 9_999;
      expect(await corrected()).toMatchObject({ allowed: false, retryAfterMs: 1 });
      nowMs += 1;
      expect(await corrected()).toMatchObject({ allowed: true, remaining: 1, resetMs: 10_000 });
    }
  });

  it('a lease of 3600 s corrected to 10 s frees the slot after 10 s', async () => {
    const [before, after] = factories();
    const key = `older:slots:${name}`;
    expect((await before(concurrencyLimitKind, { max: 1, lease: 3600 }, key)).allowed).toBe(true);

    const corrected = () => after(concurrencyLimitKind, { max: 1, lease: 10 }, key);
    expect(await corrected()).toMatchObject({ allowed: false, resetMs: 10_000 });
    nowMs += 9_999;
    expect(await corrected()).toMatchObject({ allowed: false, resetMs: 1 });
    nowMs += 1;
    expect(await corrected()).toMatchObject({ allowed: true, remaining: 0, resetMs: 10_000 });
  });

  it('a sliding log of 10000 s corrected to 10 s counts only the last 10 s', async () => {
    const [before, after] = factories();
    const key = `older:log:${name}`;
    const old = () => before(slidingWindowLimitKind, { limit: 2, window: 10_000 }, key);
    expect([(await old()).allowed, (await old()).allowed]).toEqual([true, true]);
    nowMs += 4_000;

    const corrected = () => after(slidingWindowLimitKind, { limit: 2, window: 10 }, key);
    expect(await corrected()).toMatchObject({ allowed: false, retryAfterMs: 6_000 });
    nowMs += 6_000;
    expect(await corrected()).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('an approximate window of 10000 s corrected to 10 s starts afresh', async () => {
    const [before, after] = factories();
    const key = `older:approximate:${name}`;
    const options = { limit: 2, window: 10_000, approximate: true };
    const old = () => before(approximateSlidingWindowLimitKind, options, key);
    expect([(await old()).allowed, (await old()).allowed, (await old()).allowed]).toEqual([
      true,
      true,
      false,
    ]);

    const corrected = () =>
      after(approximateSlidingWindowLimitKind, { ...options, window: 10 }, key);
    expect(await corrected()).toMatchObject({ allowed: true, remaining: 1 });
  });
});
