import { LimiterConfigError, MemoryStore, RateLimiterFactory } from '../../../src';

/** What the factory's methods are given by plain JavaScript, or past a cast. */
type Untyped = Record<string, unknown> & { key: string };

describe('factory limiters report unknown options as decorators do', () => {
  const factory = new RateLimiterFactory(new MemoryStore());
  const untyped = (options: Untyped) => options as never;

  it('all at once, each with what it is closest to, naming the factory method', () => {
    expect(() => factory.countLimiter(untyped({ key: 'k', limt: 5, perod: 60, ttl: 1 }))).toThrow(
      new LimiterConfigError(
        "countLimiter: unknown options 'limt' (did you mean 'limit'?), 'perod' (did you mean 'period'?), 'ttl'; the options are key, prefix, limit, period, lease",
      ),
    );
  });

  it.each([
    [
      'rateLimiter',
      { rate: 1, burstt: 2 },
      "rateLimiter: unknown option 'burstt' (did you mean 'burst'?); the options are key, prefix, rate, burst, capacity, expire, initialPermits, lease",
    ],
    [
      'slidingWindowLimiter',
      { limit: 1, window: 1, aproximate: true },
      "slidingWindowLimiter: unknown option 'aproximate' (did you mean 'approximate'?); the options are key, prefix, limit, window, approximate",
    ],
    [
      'slidingWindowLimiter',
      { limit: 1, window: 1, approximate: true, windw: 2 },
      "slidingWindowLimiter: unknown option 'windw' (did you mean 'window'?); the options are key, prefix, limit, window, approximate",
    ],
    [
      'concurrencyLimiter',
      { max: 1, leese: 5 },
      "concurrencyLimiter: unknown option 'leese' (did you mean 'lease'?); the options are key, prefix, max, lease",
    ],
    // A decorator's options that a programmatic limiter takes per call, or not at all.
    [
      'leakyBucketLimiter',
      { capacity: 1, rate: 1, block: 5, permits: 2 },
      "leakyBucketLimiter: unknown options 'block', 'permits'; the options are key, prefix, capacity, rate, lease",
    ],
  ])('%s %j', (method, options, message) => {
    const create = (factory as unknown as Record<string, (options: Untyped) => unknown>)[method];
    expect(() => create.call(factory, { key: 'k', ...options })).toThrow(
      new LimiterConfigError(message),
    );
  });

  it('on every call, not only when the limiter is created', () => {
    factory.countLimiter({ key: 'cached', limit: 2, period: 1 });
    expect(() =>
      factory.countLimiter(untyped({ key: 'cached', limit: 2, period: 1, perod: 60 })),
    ).toThrow(
      "countLimiter: unknown option 'perod' (did you mean 'period'?); the options are key, prefix, limit, period, lease",
    );
  });

  it('takes every option its type names', () => {
    expect(
      [
        factory.rateLimiter({
          key: 'k',
          rate: 1,
          capacity: 2,
          initialPermits: 1,
          expire: 5,
          prefix: 'a:',
        }),
        factory.countLimiter({ key: 'k', limit: 1, period: '1s' }),
        factory.slidingWindowLimiter({ key: 'k', limit: 1, window: 1, approximate: true }),
        factory.concurrencyLimiter({ key: 'k', max: 1, lease: 2 }),
        factory.leakyBucketLimiter({ key: 'k', capacity: 1, rate: 1 }),
      ].map((limiter) => limiter.constructor.name),
    ).toEqual([
      'RateLimiter',
      'CountLimiter',
      'ApproximateSlidingWindowLimiter',
      'ConcurrencyLimiter',
      'LeakyBucketLimiter',
    ]);
  });
});
