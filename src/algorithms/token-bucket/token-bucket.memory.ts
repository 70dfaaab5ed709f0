import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { TokenBucketParams, TokenBucketRequest, TokenBucketState } from './token-bucket.model';

/** The TypeScript twin of token-bucket.lua: same operations in the same order, same doubles. */
export function tokenBucketStep(
  state: TokenBucketState | undefined,
  now: number,
  params: TokenBucketParams,
  request: TokenBucketRequest,
): MemoryStep<TokenBucketState> {
  const { maxPermits, intervalMicros: interval, expireMicros: expire } = params;
  let stored = state ? state.stored : params.initialPermits;
  let nextFree = state ? state.nextFreeMicros : now;

  if (now > nextFree) {
    stored = Math.min(maxPermits, stored + (now - nextFree) / interval);
    nextFree = now;
  }
  const earliest = nextFree + Math.max(0, request.permits - stored) * interval;
  const wait = earliest - now;

  if (request.timeoutMicros >= 0 && wait > request.timeoutMicros) {
    const untilFull = nextFree - now + (maxPermits - stored) * interval;
    // A denial changes nothing, but a new bucket's refill clock must start now.
    return {
      state: state ?? { stored, nextFreeMicros: nextFree },
      ttlMs: state ? null : ttlMsFromMicros(Math.max(expire, untilFull)),
      reply: [0, stored, untilFull, wait - request.timeoutMicros, 0],
    };
  }

  stored = stored - Math.min(request.permits, stored);
  nextFree = earliest;
  const untilFull = nextFree - now + (maxPermits - stored) * interval;
  return {
    state: { stored, nextFreeMicros: nextFree },
    ttlMs: ttlMsFromMicros(Math.max(expire, untilFull)),
    reply: [1, stored, untilFull, 0, wait],
  };
}
