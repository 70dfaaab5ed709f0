/**
 * The store could not decide: Redis is down, timed out or answered something unexpected.
 * `onStoreError` decides what happens to the request; this error is never a 429.
 *
 * @publicApi
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(message: string, cause?: unknown) {
    super(cause instanceof Error ? `${message}: ${cause.message}` : message, { cause });
  }
}
