import { CompiledLimit, compileLimit } from '../../../../src/compile/compiled-limit';
import { LimiterConfigError, MemoryStore, RateLimiterFactory } from '../../../../src';

/** `block` and `count` are checked when the app starts, naming the decorator and handler. */
describe('block and count options', () => {
  const compile = (kind: string, decorator: string, options: Record<string, unknown>) =>
    compileLimit({ kind, decorator, options }, 'AuthController.login', '') as CompiledLimit;

  it('accepts block in seconds and the three count modes', () => {
    const limit = compile('countLimit', '@CountLimit', {
      limit: 5,
      block: 900,
      count: 'failures',
    });
    expect(limit.params).toMatchObject({ limit: 5, blockMicros: 900_000_000 });
    expect(limit.count).toBe('failures');
    expect(compile('rateLimit', '@RateLimit', { count: 'all' }).count).toBeUndefined();
    expect(
      compile('leakyBucketLimit', '@LeakyBucketLimit', { capacity: 1, rate: 1, count: 'successes' })
        .count,
    ).toBe('successes');
  });

  it.each([0, -1, NaN, Infinity, '0s'])('refuses block %p', (block) => {
    expect(() =>
      compile('slidingWindowLimit', '@SlidingWindowLimit', { limit: 1, window: 1, block }),
    ).toThrow(
      new LimiterConfigError(
        `@SlidingWindowLimit on AuthController.login: option 'block' must be a finite number of seconds > 0, got ${typeof block === 'string' ? `'${block}'` : String(block)}`,
      ),
    );
  });

  it('refuses a duration string outside the grammar', () => {
    expect(() =>
      compile('slidingWindowLimit', '@SlidingWindowLimit', { limit: 1, window: 1, block: '15' }),
    ).toThrow(
      "@SlidingWindowLimit on AuthController.login: option 'block' must be seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d', got '15'",
    );
  });

  it('refuses an unknown count mode', () => {
    expect(() => compile('countLimit', '@CountLimit', { count: 'errors' })).toThrow(
      "@CountLimit on AuthController.login: option 'count' must be one of 'all', 'failures', 'successes', got 'errors'",
    );
  });

  it('has no block or count on @ConcurrencyLimit', () => {
    expect(() => compile('concurrencyLimit', '@ConcurrencyLimit', { max: 1, block: 5 })).toThrow(
      "unknown option 'block'; the options are name, key, prefix, limitType, skip, shadow, settle, onStoreError, max, lease, permits",
    );
  });

  it('checks the arguments of refund and block', async () => {
    const limiter = new RateLimiterFactory(new MemoryStore()).countLimiter({ key: 'k', limit: 1 });
    await expect(limiter.refund(0)).rejects.toThrow('refund(permits): an integer >= 1, got 0');
    await expect(limiter.block(-5)).rejects.toThrow('block(seconds): a finite number > 0, got -5');
  });
});
