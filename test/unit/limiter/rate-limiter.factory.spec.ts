import { LimiterConfigError, MemoryStore, RateLimiterFactory } from '../../../src';

describe('RateLimiterFactory', () => {
  const factory = new RateLimiterFactory(new MemoryStore(), { keyPrefix: 'app:' });

  it('caches one instance per algorithm, options and key', () => {
    const a = factory.rateLimiter({ key: 'k', rate: 1, burst: 5 });
    expect(factory.rateLimiter({ key: 'k', rate: 1, burst: 5 })).toBe(a);
    expect(factory.rateLimiter({ key: 'k', rate: 2, burst: 5 })).not.toBe(a);
    expect(factory.rateLimiter({ key: 'other', rate: 1, burst: 5 })).not.toBe(a);
    const prefixed = factory.rateLimiter({ key: 'k', rate: 1, burst: 5, prefix: 'x:' });
    expect(prefixed).not.toBe(a);
    expect(prefixed.key).toBe('app:x:k');
    // Another algorithm on the same key and prefix is another instance, never a token bucket.
    expect(factory.countLimiter({ key: 'k', prefix: 'x:' }).key).toBe('app:x:k');
    expect(factory.countLimiter({ key: 'k', prefix: 'x:' })).not.toBe(prefixed);
    expect(factory.rateLimiter({ key: 'k', rate: 1, burst: 5 })).toBe(a);
    expect(a.key).toBe('app:rateLimit:k');
    expect(factory.countLimiter({ key: 'k', prefix: 'c/' }).key).toBe('app:c/k');
  });

  it.each([
    [{ rate: 0 }, "rateLimiter: option 'rate' must be a finite number > 0, got 0"],
    [{ rate: -1 }, "rateLimiter: option 'rate' must be a finite number > 0, got -1"],
    [{ rate: Infinity }, "rateLimiter: option 'rate' must be a finite number > 0, got Infinity"],
    [{ burst: -0.5 }, "rateLimiter: option 'burst' must be a finite number >= 0, got -0.5"],
    [
      { rate: 1, burst: 2, initialPermits: 3 },
      "rateLimiter: option 'initialPermits' must be a number from 0 to rate * burst (2), got 3",
    ],
  ])('rejects token bucket options %j', (options, message) => {
    expect(() => factory.rateLimiter({ key: 'k', ...options })).toThrow(
      new LimiterConfigError(message),
    );
  });

  it('denies a request that can never be served without waiting, and rejects bad permits', async () => {
    const limiter = factory.rateLimiter({ key: 'k', rate: 1, burst: 2 });
    expect(await limiter.tryAcquire({ permits: 3 })).toBe(false);
    expect(await limiter.decide(3)).toMatchObject({
      allowed: false,
      remaining: 2,
      retryAfterMs: -1,
    });
    await expect(limiter.tryAcquire({ permits: 1.5 })).rejects.toThrow(
      "rateLimiter: option 'permits' must be an integer >= 0, got 1.5",
    );
    // With a timeout the bucket may go into debt: 3 permits on a 2-permit bucket wait 1 s.
    expect(await limiter.reserve(3)).toBe(1000);
  });

  it.each([
    [{ limit: 0 }, "countLimiter: option 'limit' must be an integer >= 1, got 0"],
    [{ limit: -1 }, "countLimiter: option 'limit' must be an integer >= 1, got -1"],
    [{ limit: 2.5 }, "countLimiter: option 'limit' must be an integer >= 1, got 2.5"],
    [{ period: 0 }, "countLimiter: option 'period' must be a finite number > 0, got 0"],
  ])('rejects counter options %j', (options, message) => {
    expect(() => factory.countLimiter({ key: 'k', ...options })).toThrow(message);
  });

  it('rejects an empty key', () => {
    expect(() => factory.countLimiter({ key: '' })).toThrow(
      "countLimiter: option 'key' must be a non-empty string, got ''",
    );
  });
});
