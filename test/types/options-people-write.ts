/*
 * Options as people write them. This file is type-checked by type-checks.spec.ts (and by
 * `tsc -p tsconfig.json`): every line without `@ts-expect-error` must compile, every line
 * with it must not (an unused directive is an error too).
 */
import { Controller, Get } from '@nestjs/common';
import {
  ConcurrencyLimit,
  CountLimit,
  LeakyBucketLimit,
  LimitType,
  RateLimit,
  RateLimiterFactory,
  RateLimiterModuleOptions,
  SlidingWindowLimit,
} from 'nestjs-limiter';

@Controller('types')
export class OptionsPeopleWriteController {
  @Get('literal')
  @CountLimit({ limitType: 'USER', limit: 5, period: '1m' })
  @CountLimit({ limitType: LimitType.USER, limit: 50, period: 3600, key: '' })
  @SlidingWindowLimit({ limitType: 'IP', limit: 10, window: '30s', block: '15m' })
  @RateLimit({ limitType: 'METHOD', rate: 1 / 60, capacity: 3, timeout: '500ms', expire: '1h' })
  @RateLimit({ key: 'sms:#{body.phone}', limitType: 'CUSTOM', rate: 1, burst: '1.5s' })
  @ConcurrencyLimit({ limitType: 'IP', max: 2, lease: '2m' })
  @LeakyBucketLimit({ capacity: 5, rate: 1, block: 30 })
  @CountLimit({ limit: 5, period: (ctx) => (ctx.user ? '1m' : '1h') })
  literal() {
    return 'ok';
  }

  // @ts-expect-error a limit type is spelled in capitals, as the enum's values are
  @CountLimit({ limitType: 'user', limit: 5, period: 60 })
  @Get('lower-case')
  lowerCase() {
    return 'ok';
  }

  // @ts-expect-error a duration needs a unit
  @CountLimit({ limit: 5, period: '60' })
  @Get('no-unit')
  noUnit() {
    return 'ok';
  }

  // @ts-expect-error 'min' is not a unit: m is
  @SlidingWindowLimit({ limit: 5, window: '1min' })
  @Get('bad-unit')
  badUnit() {
    return 'ok';
  }
}

export async function programmatic(factory: RateLimiterFactory): Promise<boolean> {
  const limiter = factory.rateLimiter({ key: 'report:1', rate: 1 / 30, capacity: 2 });
  await limiter.block('10m');
  await factory.countLimiter({ key: 'login:alice', limit: 5, period: '1m' }).tryAcquire();
  await factory.concurrencyLimiter({ key: 'jobs', max: 2, lease: '30s' }).tryAcquire();
  // @ts-expect-error a duration needs a unit
  await factory.slidingWindowLimiter({ key: 'x', limit: 1, window: '5' }).tryAcquire();
  return limiter.tryAcquire({ permits: 1, timeout: '250ms' });
}

export const errorMessages: RateLimiterModuleOptions[] = [
  { errorMessage: 'Slow down' },
  {
    errorMessage: (context, { name, limit, retryAfter, retryAfterMs, violatedPolicies }) =>
      `${context.getHandler().name}: ${name} allows ${limit}, retry in ${retryAfter} s ` +
      `(${retryAfterMs} ms; ${violatedPolicies.join(', ')})`,
  },
  // @ts-expect-error the message is text, not a status
  { errorMessage: 429 },
];
