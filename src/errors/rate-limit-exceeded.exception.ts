import { HttpException, HttpStatus } from '@nestjs/common';

/** The JSON body of a 429 response. */
export interface RateLimitExceededBody {
  statusCode: 429;
  message: string;
  /**
   * Seconds until the request could be allowed, rounded up; -1 when it never can (it costs
   * more permits than the limit holds), and then no `Retry-After` header is sent.
   */
  retryAfter: number;
}

/**
 * 429 Too Many Requests, with the body `{ statusCode, message, retryAfter }`.
 * Throw it from your own code after a programmatic limiter denies.
 *
 * @example
 * ```ts
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException(30);
 * ```
 * @publicApi
 */
export class RateLimitExceededException extends HttpException {
  constructor(retryAfterSeconds = 1, message = 'Too Many Requests') {
    const body: RateLimitExceededBody = { statusCode: 429, message, retryAfter: retryAfterSeconds };
    super(body, HttpStatus.TOO_MANY_REQUESTS);
  }
}
