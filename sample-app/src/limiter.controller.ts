import { Controller, Get, Query } from '@nestjs/common';
import {
  CountLimit,
  LimitType,
  RateLimit,
  RateLimitExceededException,
  RateLimiterFactory,
} from 'nestjs-limiter';

@Controller('limiter')
export class LimiterController {
  constructor(private readonly limiters: RateLimiterFactory) {}

  /** Two requests per 10 seconds for each value of `?key=`. */
  @Get('count')
  @CountLimit({ key: '#{key}', limit: 2, period: 10 })
  count(@Query('key') key: string) {
    return { ok: true, key };
  }

  /** One request per 5 seconds for everybody (a full bucket holds one permit). */
  @Get('rate')
  @RateLimit({ rate: 1 / 5, burst: 5 })
  rate() {
    return { ok: true };
  }

  /** The same limit through the programmatic API. */
  @Get('rate2')
  async rate2() {
    const limiter = this.limiters.rateLimiter({ key: 'sample:rate2', rate: 1 / 5, burst: 5 });
    if (!(await limiter.tryAcquire())) throw new RateLimitExceededException(5);
    return { ok: true };
  }

  /** Ten a second; a request may wait up to 2 s for its turn instead of being refused. */
  @Get('wait')
  @RateLimit({ rate: 10, burst: 0.1, timeout: 2 })
  wait() {
    return { ok: true, at: Date.now() };
  }

  /** Three requests per minute for each client IP. */
  @Get('ip')
  @CountLimit({ limitType: LimitType.IP, limit: 3, period: 60 })
  ip() {
    return { ok: true };
  }

  /** Two requests per minute for each user (the `x-user-id` header in this sample). */
  @Get('user')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  user() {
    return { ok: true };
  }
}
