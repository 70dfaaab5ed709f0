import { compileLimit } from '../../../src/compile/compiled-limit';
import { MemoryStore, RateLimiterFactory } from '../../../src';

const compile = (kind: string, decorator: string, options: Record<string, unknown>) => () =>
  compileLimit({ kind, decorator, options }, 'Api.list', '');

/** The parameters a static limit compiled to. */
const paramsOf = (compiled: () => unknown) => (compiled() as { params: unknown }).params;

/** `lease: n` (permits) on the three limits where a lease cannot admit more than the limit. */
describe('the lease option', () => {
  it.each([
    ['countLimit', '@CountLimit', { limit: 10, period: 60 }],
    ['rateLimit', '@RateLimit', { rate: 10, burst: 1 }],
    ['leakyBucketLimit', '@LeakyBucketLimit', { capacity: 10, rate: 1 }],
  ])('is taken by %s, a whole number of permits >= 1', (kind, decorator, options) => {
    expect(paramsOf(compile(kind, decorator, { ...options, lease: 100 }))).toMatchObject({
      leasePermits: 100,
    });
    for (const lease of [0, 1.5, '100', null]) {
      expect(compile(kind, decorator, { ...options, lease })).toThrow(
        `${decorator} on Api.list: option 'lease' must be a whole number of permits >= 1, got `,
      );
    }
  });

  it.each([[{ limit: 10, window: 60 }], [{ limit: 10, window: 60, approximate: true }]])(
    'is refused at start-up on @SlidingWindowLimit %j, naming it: a lease could admit more than the limit',
    (options) => {
      expect(
        compile('slidingWindowLimit', '@SlidingWindowLimit', { ...options, lease: 10 }),
      ).toThrow("@SlidingWindowLimit on Api.list: unknown option 'lease'; the options are ");
    },
  );

  it("keeps its meaning on @ConcurrencyLimit: a slot's lease, in seconds", () => {
    const params = paramsOf(
      compile('concurrencyLimit', '@ConcurrencyLimit', { max: 2, lease: 30 }),
    );
    expect(params).not.toHaveProperty('leasePermits');
    expect(params).toMatchObject({ leaseMicros: 30_000_000 });
  });

  it('is checked on factory limiters, naming the method', () => {
    const factory = new RateLimiterFactory(new MemoryStore());
    expect(() => factory.countLimiter({ key: 'k', limit: 5, period: 60, lease: 0 })).toThrow(
      "countLimiter: option 'lease' must be a whole number of permits >= 1, got 0",
    );
  });
});
