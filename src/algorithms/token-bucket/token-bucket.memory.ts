import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { TokenBucketParams, TokenBucketRequest, TokenBucketState } from './token-bucket.model';

/**
 * The TypeScript twin of token-bucket.lua: same operations in the same order, same doubles,
 * and the reply rounded as the script rounds it (whole permits down, whole µs up).
 */
export function tokenBucketStep(
  state: TokenBucketState | undefined,
  now: number,
  params: TokenBucketParams,
  request: TokenBucketRequest,
): MemoryStep<TokenBucketState> {
  const { maxPermits, intervalMicros: interval, expireMicros: expire } = params;
  const fullSpan = maxPermits * interval;
  let emptyAt = state
    ? Math.max(state.emptyAtMicros, now - fullSpan)
    : now - params.initialPermits * interval;
  const earliest = Math.max(now, emptyAt + request.permits * interval);
  const wait = earliest - now;

  if (request.timeoutMicros >= 0 && wait > request.timeoutMicros) {
    const untilFull = emptyAt + fullSpan - now;
    const stored = Math.max(0, (now - emptyAt) / interval);
    // A denial changes nothing, but a new bucket's refill clock must start now.
    return {
      state: state ?? { emptyAtMicros: Math.ceil(emptyAt) },
      ttlMs: state ? null : ttlMsFromMicros(Math.max(expire, untilFull)),
      reply: [
        0,
        Math.floor(stored),
        Math.ceil(untilFull),
        Math.ceil(wait - request.timeoutMicros),
        0,
      ],
    };
  }

  emptyAt = Math.ceil(emptyAt + request.permits * interval);
  const untilFull = emptyAt + fullSpan - now;
  return {
    state: { emptyAtMicros: emptyAt },
    ttlMs: ttlMsFromMicros(Math.max(expire, untilFull)),
    reply: [
      1,
      Math.floor(Math.max(0, (now - emptyAt) / interval)),
      Math.ceil(untilFull),
      0,
      Math.ceil(wait),
    ],
  };
}
