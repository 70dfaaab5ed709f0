import { Decision, DecisionCall, LimiterStore, MemoryStore } from '../../../src';
import { createTestingStore, limiterStoreConformance, ManualClock } from '../../../src/testing';
import type { LimiterStoreCheck } from '../../../src/testing';

/** A store of the app's own: every decision through a memory store, counted. */
class CountingStore extends LimiterStore {
  calls = 0;
  constructor(private readonly inner = new MemoryStore()) {
    super();
  }
  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    this.calls++;
    return this.inner.evaluate(call);
  }
  override currentTimeMs(): number {
    return this.inner.currentTimeMs();
  }
}

/** A store that breaks the contract one way: refunds are answered and never run. */
class NoRefundStore extends CountingStore {
  override evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    if (call.algorithm.commandName.endsWith('Refund')) return Promise.resolve(NOTHING);
    return super.evaluate(call);
  }
}

/**
 * And another: decisions on one key asked in the same turn share the first one's answer (an
 * in-flight cache per key), so a burst is answered as if it were one request.
 */
class SharedAnswerStore extends CountingStore {
  private readonly inFlight = new Map<string, Promise<Decision>>();
  override evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    const pending = this.inFlight.get(call.key);
    if (pending) return pending;
    const answer = super.evaluate(call);
    this.inFlight.set(call.key, answer);
    queueMicrotask(() => this.inFlight.delete(call.key));
    return answer;
  }
}

const NOTHING: Decision = {
  allowed: false,
  limit: 0,
  remaining: 0,
  resetMs: 0,
  retryAfterMs: 0,
  waitMs: 0,
};

async function failuresOf(checks: LimiterStoreCheck[]): Promise<string[]> {
  const failed: string[] = [];
  for (const check of checks) {
    await check.run().catch(() => failed.push(check.name));
  }
  return failed;
}

describe('limiterStoreConformance (nestjs-limiter/testing)', () => {
  const clock = new ManualClock();
  describe('the memory store on a manual clock', () => {
    for (const check of limiterStoreConformance({
      store: () => createTestingStore({ clock }),
      advance: (ms) => clock.advance(ms),
    })) {
      it(check.name, () => check.run());
    }
  });

  describe("a store of the app's own around a memory store", () => {
    const stores: CountingStore[] = [];
    const checks = limiterStoreConformance({
      store: () => {
        stores.push(new CountingStore(createTestingStore({ clock })));
        return stores[stores.length - 1];
      },
      advance: (ms) => clock.advance(ms),
    });
    for (const check of checks) it(check.name, () => check.run());
    afterAll(() => {
      // Every check made its store and decided through it.
      expect(stores.length).toBe(checks.length);
      expect(stores.every((store) => store.calls > 0)).toBe(true);
    });
  });

  it('has a check for every algorithm, and names each once', () => {
    const names = limiterStoreConformance({ store: () => new MemoryStore() }).map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const algorithm of [
      'rateLimit',
      'countLimit',
      'slidingWindowLimit',
      'approximateSlidingWindowLimit',
      'leakyBucketLimit',
      'quotaLimit',
      'concurrencyLimit',
    ]) {
      expect(
        names.filter((name) => name.startsWith(`${algorithm}: `)).length,
      ).toBeGreaterThanOrEqual(4);
    }
  });

  /** The checks a store fails, run on the shared manual clock. */
  const failuresOnClock = (store: (inner: MemoryStore) => LimiterStore) =>
    failuresOf(
      limiterStoreConformance({
        store: () => store(createTestingStore({ clock })),
        advance: (ms) => clock.advance(ms),
      }),
    );
  const names = limiterStoreConformance({ store: () => new MemoryStore() }).map((c) => c.name);
  const named = (pattern: RegExp) => names.filter((name) => pattern.test(name)).sort();

  it('fails a store that never runs a refund, on exactly the checks of refunds', async () => {
    const failed = await failuresOnClock((inner) => new NoRefundStore(inner));
    expect(failed.sort()).toEqual(named(/: permits refunded/));
    expect(failed).toHaveLength(5);
  });

  it('fails a store whose state never expires, on exactly the checks of expiry', async () => {
    const failed = await failuresOf(
      limiterStoreConformance({
        store: () => new CountingStore(new MemoryStore({ now: () => 1_700_000_000_000 })),
        // The test's clock moves on; the store's never does.
        advance: (ms) => clock.advance(ms),
      }),
    );
    expect(failed.sort()).toEqual(named(/: a limit taken in full is whole again/));
    expect(failed).toHaveLength(6);
  });

  it('fails a store that answers a burst on one key as one request, on exactly the checks of bursts', async () => {
    const failed = await failuresOnClock((inner) => new SharedAnswerStore(inner));
    expect(failed.sort()).toEqual(named(/decisions at once|released slot/));
    expect(failed).toHaveLength(8);
  });
});
