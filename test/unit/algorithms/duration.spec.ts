import { durationOfMilliseconds, millisecondsSuspects } from '../../../src/algorithms/duration';
import { blockOption, parseDuration, secondsOption } from '../../../src/algorithms/option-rules';
import { concurrencyLimitParams } from '../../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { countLimitParams } from '../../../src/algorithms/count-limit/count-limit.model';
import { slidingWindowLimitParams } from '../../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import {
  burstSeconds,
  rateLimitParams,
  rateLimitRequest,
  checkServable,
  RateLimitParams,
} from '../../../src/algorithms/rate-limit/rate-limit.model';
import { manualBlockMicros } from '../../../src/algorithms/state-ops/state-ops.model';

const EXPECTED =
  "seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d'";

describe('duration strings', () => {
  it.each([
    ['500ms', 0.5],
    ['1000ms', 1],
    ['1ms', 0.001],
    ['30s', 30],
    ['1.5s', 1.5],
    ['0.25s', 0.25],
    ['1m', 60],
    ['2.5m', 150],
    ['1h', 3600],
    ['1d', 86_400],
    ['0s', 0],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each([
    '',
    '60',
    '1 m',
    ' 1m',
    '1m ',
    '1min',
    '1M',
    '1S',
    '-1s',
    '+1s',
    '1e3ms',
    '.5s',
    '5.s',
    '1h30m',
    '1w',
    'ms',
    'Infinitys',
    'NaNs',
    '0x10s',
  ])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('leaves numbers to the option rule and refuses a string outside the grammar by name', () => {
    expect(secondsOption(90, 'w', 'period')).toBe(90);
    expect(secondsOption('90s', 'w', 'period')).toBe(90);
    expect(() => secondsOption('90 seconds', '@CountLimit on A.b', 'period')).toThrow(
      `@CountLimit on A.b: option 'period' must be ${EXPECTED}, got '90 seconds'`,
    );
  });
});

describe('every time option takes a duration', () => {
  it('period, window and lease', () => {
    expect(countLimitParams({ limit: 5, period: '1m' })).toEqual({ limit: 5, periodMs: 60_000 });
    expect(countLimitParams({ limit: 5, period: '250ms' })).toEqual({ limit: 5, periodMs: 250 });
    expect(slidingWindowLimitParams({ limit: 5, window: '1h' })).toEqual({
      limit: 5,
      windowMicros: 3_600_000_000,
    });
    expect(concurrencyLimitParams({ max: 2, lease: '30s' })).toEqual({
      max: 2,
      leaseMicros: 30_000_000,
    });
  });

  it('burst, expire, timeout and block', () => {
    const params = rateLimitParams({ rate: 1 / 60, burst: '1h', expire: '2m' });
    expect(params.maxPermits).toBe(60);
    expect(params.expireMicros).toBe(120_000_000);
    expect(rateLimitRequest(1, '1.5s')).toEqual({ permits: 1, timeoutMicros: 1_500_000 });
    expect(blockOption('15m', 'w')).toBe(900_000_000);
    expect(manualBlockMicros('500ms')).toBe(500_000);
  });

  it('names the option and shows the value as written', () => {
    expect(() => countLimitParams({ limit: 5, period: '0s' }, '@CountLimit on A.b')).toThrow(
      "@CountLimit on A.b: option 'period' must be a finite number > 0, got '0s'",
    );
    expect(() =>
      slidingWindowLimitParams(
        { limit: 5, window: '1 minute' as never },
        '@SlidingWindowLimit on A.b',
      ),
    ).toThrow(`@SlidingWindowLimit on A.b: option 'window' must be ${EXPECTED}, got '1 minute'`);
    expect(() => concurrencyLimitParams({ max: 1, lease: '60' as never })).toThrow(
      `concurrencyLimiter: option 'lease' must be ${EXPECTED}, got '60'`,
    );
    expect(() => rateLimitParams({ burst: '1y' as never })).toThrow(
      `rateLimiter: option 'burst' must be ${EXPECTED}, got '1y'`,
    );
    expect(() => rateLimitParams({ expire: 'soon' as never })).toThrow(
      `rateLimiter: option 'expire' must be ${EXPECTED}, got 'soon'`,
    );
    expect(() => rateLimitRequest(1, '1sec' as never)).toThrow(
      `rateLimiter: option 'timeout' must be ${EXPECTED}, got '1sec'`,
    );
    expect(() => blockOption('0ms', '@CountLimit on A.b')).toThrow(
      "@CountLimit on A.b: option 'block' must be a finite number of seconds > 0, got '0ms'",
    );
    expect(() => manualBlockMicros('15 min' as never)).toThrow(
      `block(seconds): ${EXPECTED}, got '15 min'`,
    );
  });
});

describe('capacity, the alternative to burst', () => {
  it('sizes the bucket in permits: burst is capacity / rate', () => {
    const params = rateLimitParams({ rate: 1 / 60, capacity: 5 });
    expect(params.maxPermits).toBe(5);
    expect(params.intervalMicros).toBe(60_000_000);
  });

  it('refuses burst and capacity together', () => {
    expect(() =>
      rateLimitParams({ rate: 1, burst: 10, capacity: 10 }, '@RateLimit on A.b'),
    ).toThrow(
      "@RateLimit on A.b: options 'burst' and 'capacity' exclude each other; pass only one",
    );
  });

  it.each([0, -1, NaN, Infinity, '5'])('refuses capacity %p', (capacity) => {
    expect(() => rateLimitParams({ capacity: capacity as number })).toThrow(
      `rateLimiter: option 'capacity' must be a finite number > 0, got ${typeof capacity === 'string' ? `'${capacity}'` : String(capacity)}`,
    );
  });

  it('names the option the user set when permits exceed the bucket', () => {
    const servable = (params: RateLimitParams) =>
      checkServable(params, rateLimitRequest(4, 0), 'rateLimiter');
    expect(() => servable(rateLimitParams({ rate: 1, capacity: 3 }))).toThrow(
      "rateLimiter: option 'permits' must be at most capacity (3) when timeout is 0, got 4",
    );
    expect(() => servable(rateLimitParams({ rate: 1, burst: 3 }))).toThrow(
      "rateLimiter: option 'permits' must be at most rate * burst (3) when timeout is 0, got 4",
    );
    expect(() => rateLimitParams({ rate: 1, capacity: 3, initialPermits: 4 })).toThrow(
      "rateLimiter: option 'initialPermits' must be a number from 0 to capacity (3), got 4",
    );
  });
});

describe('numbers that look like milliseconds', () => {
  const WINDOW = ['period', 'window', 'block'];

  it('suspects any bare number from 1,000 up on a time option, whatever the limit', () => {
    expect(millisecondsSuspects({ limit: 1000, period: 60_000 }, WINDOW)).toEqual([
      { option: 'period', value: 60_000 },
    ]);
    expect(millisecondsSuspects({ limit: 10, period: 1500 }, WINDOW)).toEqual([
      { option: 'period', value: 1500 },
    ]);
    expect(millisecondsSuspects({ limit: 5, window: 1000, block: 3600 }, WINDOW)).toEqual([
      { option: 'window', value: 1000 },
      { option: 'block', value: 3600 },
    ]);
    expect(millisecondsSuspects({ period: 1, block: [60, 300, 86_400] }, WINDOW)).toEqual([
      { option: 'block[2]', value: 86_400 },
    ]);
  });

  it('leaves numbers under 1,000, strings, functions and other options alone', () => {
    expect(millisecondsSuspects({ limit: 10, period: 999.9 }, WINDOW)).toEqual([]);
    expect(millisecondsSuspects({ limit: 10, period: '1d' }, WINDOW)).toEqual([]);
    expect(millisecondsSuspects({ limit: 10, period: () => 60_000 }, WINDOW)).toEqual([]);
    // `lease` is a count of permits on a counter: only the kind's own times are looked at.
    expect(millisecondsSuspects({ limit: 5000, lease: 1000, period: 60 }, WINDOW)).toEqual([]);
  });

  it.each([
    [60_000, '1m'],
    [3_600_000, '1h'],
    [86_400_000, '1d'],
    [90_000, '90s'],
    [1500, '1500ms'],
  ])('writes %d ms as %s', (milliseconds, text) => {
    expect(durationOfMilliseconds(milliseconds)).toBe(text);
  });
});

describe('the policy window of a token bucket', () => {
  it.each([
    [{ rate: 1 / 60, burst: 60 }, 60],
    [{ rate: 1 / 60, capacity: 1 }, 60],
    [{ rate: 1 / 3, capacity: 7 }, 21],
    [{ rate: 10, burst: '100ms' as const }, 0.1],
  ])('%p fills in %d s', (options, seconds) => {
    expect(burstSeconds(rateLimitParams(options))).toBe(seconds);
  });
});
