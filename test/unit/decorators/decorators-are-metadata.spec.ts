import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import {
  ConcurrencyLimit,
  CountLimit,
  LeakyBucketLimit,
  LimitType,
  RateLimit,
  SkipRateLimit,
  SlidingWindowLimit,
} from '../../../src';
import { LIMITS_METADATA } from '../../../src/rate-limiter.constants';

/** Every limit decorator, with the options that need work after the handler. */
class Decorated {
  @ConcurrencyLimit({ max: 1 })
  slots() {}

  @CountLimit({ limit: 1, period: 60, count: 'failures' })
  failures() {}

  @RateLimit({ rate: 1, burst: 1, settle: () => 1 })
  settled() {}

  @SlidingWindowLimit({ limitType: LimitType.USER, limit: 1, window: 60 })
  perUser() {}

  @LeakyBucketLimit({ key: 'me:#{user.id}', rate: 1, capacity: 1, count: 'successes' })
  template() {}

  @SkipRateLimit()
  skipped() {}
}

@ConcurrencyLimit({ limitType: LimitType.USER, max: 1 })
class DecoratedClass {}

describe('limit decorators are metadata only (docs/design.md#layout)', () => {
  const methods = ['slots', 'failures', 'settled', 'perUser', 'template', 'skipped'] as const;

  it('bind no interceptor and no guard on a method or a class', () => {
    const bound = [...methods.map((name) => Decorated.prototype[name]), DecoratedClass].map(
      (target) => [
        Reflect.getMetadata(INTERCEPTORS_METADATA, target),
        Reflect.getMetadata(GUARDS_METADATA, target),
      ],
    );
    expect(bound).toEqual(Array(methods.length + 1).fill([undefined, undefined]));
  });

  it('record one limit each', () => {
    const counts = methods.map(
      (name) => (Reflect.getOwnMetadata(LIMITS_METADATA, Decorated.prototype[name]) ?? []).length,
    );
    expect(counts).toEqual([1, 1, 1, 1, 1, 0]);
    expect(Reflect.getOwnMetadata(LIMITS_METADATA, DecoratedClass)).toHaveLength(1);
  });
});
