import { ExecutionContext, Logger } from '@nestjs/common';

/**
 * What a denial's message may say: the limit that denied the request (the one with the
 * longest wait when several did) and when to come back.
 *
 * @publicApi
 */
export interface RateLimitErrorDetail {
  /** The name of the limit that denied the request. */
  name: string;
  /** Its quota: the permits (or concurrent slots) it allows. */
  limit: number;
  /** Seconds until the request could be allowed, rounded up; -1 when it never can. */
  retryAfter: number;
  /** Milliseconds until the request could be allowed; -1 when it never can. */
  retryAfterMs: number;
  /** The names of every limit that denied it. */
  violatedPolicies: string[];
}

/** The `errorMessage` module option: a fixed text, or one written per denial. */
export type RateLimitErrorMessage =
  string | ((context: ExecutionContext, detail: RateLimitErrorDetail) => string);

const DEFAULT_ERROR_MESSAGE = 'Too Many Requests';

/**
 * The message of a 429. A function that throws or returns no string is the app's mistake:
 * logged, and the client still gets its 429 with the default message, never a 500.
 */
export function errorMessageFor(
  errorMessage: RateLimitErrorMessage | undefined,
  context: ExecutionContext,
  detail: RateLimitErrorDetail,
  logger: Logger,
): string {
  if (errorMessage === undefined) return DEFAULT_ERROR_MESSAGE;
  if (typeof errorMessage === 'string') return errorMessage;
  try {
    const message = errorMessage(context, detail);
    if (typeof message === 'string') return message;
    logger.error(`errorMessage returned ${typeof message}, not a string: the default is sent`);
  } catch (error) {
    logger.error(`errorMessage threw (${(error as Error)?.message}): the default is sent`);
  }
  return DEFAULT_ERROR_MESSAGE;
}
