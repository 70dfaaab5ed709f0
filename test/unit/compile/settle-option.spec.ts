import { CompiledLimit, compileLimit } from '../../../src/compile/compiled-limit';
import { LimiterConfigError } from '../../../src';

/** `settle` is checked when the app starts, naming the decorator and handler. */
describe('the settle option', () => {
  const compile = (kind: string, decorator: string, options: Record<string, unknown>) =>
    compileLimit({ kind, decorator, options }, 'LlmController.complete', '') as CompiledLimit;
  const settle = () => 1;

  it.each([
    ['rateLimit', '@RateLimit', { rate: 1, burst: 10 }],
    ['countLimit', '@CountLimit', { limit: 10, period: 1 }],
    ['slidingWindowLimit', '@SlidingWindowLimit', { limit: 10, window: 1 }],
    ['slidingWindowLimit', '@SlidingWindowLimit', { limit: 10, window: 1, approximate: true }],
    ['leakyBucketLimit', '@LeakyBucketLimit', { capacity: 10, rate: 1 }],
  ])('is kept on %s (%s), which can refund and charge', (kind, decorator, options) => {
    expect(compile(kind, decorator, { ...options, settle }).settle).toBe(settle);
  });

  it('must be a function', () => {
    expect(() => compile('rateLimit', '@RateLimit', { settle: 5 })).toThrow(
      new LimiterConfigError(
        "@RateLimit on LlmController.complete: option 'settle' must be a function, got 5",
      ),
    );
  });

  it('is refused where permits cannot be corrected both ways', () => {
    expect(() => compile('concurrencyLimit', '@ConcurrencyLimit', { max: 1, settle })).toThrow(
      new LimiterConfigError(
        "@ConcurrencyLimit on LlmController.complete: option 'settle' needs a limit that can both give permits back and take more after the handler; this one cannot (a concurrency slot is always given back whole when the work ends)",
      ),
    );
  });
});
