import { NEVER_MICROS, RawReply } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { AdjustmentStep } from '../state-ops/state-ops.model';
import { RateLimitParams, RateLimitRequest, RateLimitState } from './rate-limit.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<RateLimitParams, RateLimitState>;

/**
 * The TypeScript twin of rate-limit.lua: same operations in the same order, same doubles,
 * and the reply rounded as the script rounds it (whole permits down, whole µs up).
 */
export function rateLimitStep(
  state: RateLimitState | undefined,
  now: number,
  params: RateLimitParams,
  request: RateLimitRequest,
): MemoryStep<RateLimitState> {
  const { maxPermits, intervalMicros: interval, expireMicros: expire } = params;
  const fullSpan = maxPermits * interval;
  let emptyAt = state
    ? Math.max(state.emptyAtMicros, now - fullSpan)
    : now - params.initialPermits * interval;
  // A request of 0 passes only where one of 1 would (it takes nothing).
  const need = Math.max(request.permits, 1);
  const earliest = Math.max(now, emptyAt + need * interval);
  const wait = earliest - now;

  if (request.timeoutMicros >= 0 && wait > request.timeoutMicros) {
    const untilFull = emptyAt + fullSpan - now;
    const stored = Math.max(0, (now - emptyAt) / interval);
    // More than a full bucket serves within the timeout: it can never pass.
    const never = need * interval - fullSpan > request.timeoutMicros;
    const reply = [
      0,
      Math.floor(stored),
      Math.ceil(untilFull),
      never ? NEVER_MICROS : Math.ceil(wait - request.timeoutMicros),
      0,
    ] as const;
    if (state || never) return { state, ttlMs: null, reply };
    // A denial changes nothing, but a new bucket's refill clock must start now.
    return {
      state: { emptyAtMicros: Math.ceil(emptyAt) },
      ttlMs: ttlMsFromMicros(Math.max(expire, untilFull)),
      reply,
    };
  }
  if (request.permits === 0) {
    const stored = Math.max(0, (now - emptyAt) / interval);
    const untilFull = Math.ceil(emptyAt + fullSpan - now);
    const reply: RawReply = [1, Math.floor(stored), untilFull, 0, Math.ceil(wait)];
    return { state, ttlMs: null, reply };
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

/** The twin of rate-limit.refund.lua: gives permits back, never above a full bucket. */
export const rateLimitRefundStep: Adjustment = (state, now, params, request) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!state) return { state, ttlMs: null, reply: done };
  const { maxPermits, intervalMicros: interval, expireMicros: expire } = params;
  const fullSpan = maxPermits * interval;
  const emptyAt = Math.max(
    Math.floor(state.emptyAtMicros - request.permits * interval),
    Math.ceil(now - fullSpan),
  );
  if (emptyAt <= now - fullSpan && params.initialPermits >= maxPermits) {
    return { state: undefined, ttlMs: null, reply: done };
  }
  const ttlMs = ttlMsFromMicros(Math.max(expire, emptyAt + fullSpan - now));
  return { state: { emptyAtMicros: emptyAt }, ttlMs, reply: done };
};
