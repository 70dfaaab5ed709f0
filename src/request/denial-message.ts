import { ExecutionContext, Logger } from '@nestjs/common';
import { Taken } from './taken-permits';
import { errorMessageFor, RateLimitErrorMessage } from '../errors/rate-limit-error-message';
import { quotaOf } from './rate-limit-headers';

/**
 * The module's `errorMessage` for a denial, told of the limit with the longest wait (the one
 * the client must wait out), or of one that can never pass (`retries` < 0) first.
 */
export function denialMessage(
  errorMessage: RateLimitErrorMessage,
  context: ExecutionContext,
  denied: readonly Taken[],
  retries: readonly number[],
  logger: Logger,
): string {
  let chosen = 0;
  for (let i = 1; i < retries.length; i++) {
    const [current, best] = [retries[i], retries[chosen]];
    if (best >= 0 && (current < 0 || current > best)) chosen = i;
  }
  const { limit, decision } = denied[chosen];
  const retryAfterMs = retries[chosen];
  return errorMessageFor(
    errorMessage,
    context,
    {
      name: limit.name,
      limit: quotaOf(decision),
      retryAfter: retryAfterMs < 0 ? -1 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
      retryAfterMs,
      violatedPolicies: denied.map((outcome) => outcome.limit.name),
    },
    logger,
  );
}
