/**
 * A limit's options are invalid. Thrown when a limiter is created, and at application
 * start-up for decorated handlers, with a message naming the option and its value.
 *
 * @publicApi
 */
export class LimiterConfigError extends Error {
  override readonly name = 'LimiterConfigError';
}
