import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * The store could not decide: Redis is down, timed out or answered something unexpected.
 * `onStoreError` decides what happens to the request; this error is never a 429. Under
 * `'deny'` the module's factory throws it, and since it is a 503 `HttpException`, a handler
 * that lets it escape answers `503 Service Unavailable`, not a 500. The response body stays
 * generic; `message` and `cause` carry the details for logs.
 *
 * @publicApi
 */
export class StoreUnavailableError extends HttpException {
  override readonly name = 'StoreUnavailableError';

  constructor(message: string, cause?: unknown) {
    super(
      { statusCode: HttpStatus.SERVICE_UNAVAILABLE, message: 'Rate limiting is unavailable' },
      HttpStatus.SERVICE_UNAVAILABLE,
      { cause },
    );
    this.message = cause instanceof Error ? `${message}: ${cause.message}` : message;
  }
}
