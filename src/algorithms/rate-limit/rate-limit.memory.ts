import { NEVER_MICROS, RawReply } from '../../contracts/decision';
import { exactString, MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { AdjustmentStep } from '../state-ops/state-ops.model';
import {
  rateLimitArgv,
  RateLimitParams,
  RateLimitRequest,
  RateLimitState,
} from './rate-limit.model';

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
  const { found, fingerprint, cut } = asFound(state, now, params, request);
  let emptyAt = found
    ? Math.max(found.emptyAtMicros, now - fullSpan)
    : now - params.initialPermits * interval;
  // What a decision that writes nothing leaves: the state as found, or as cut (the Lua's SET).
  const unchanged = (reply: RawReply): MemoryStep<RateLimitState> =>
    cut
      ? {
          state: found,
          ttlMs: ttlMsFromMicros(Math.max(expire, found!.emptyAtMicros + fullSpan - now)),
          reply,
        }
      : { state, ttlMs: null, reply };
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
    if (state || never) return unchanged(reply);
    // A denial changes nothing, but a new bucket's refill clock must start now.
    return {
      state: { emptyAtMicros: Math.ceil(emptyAt), fingerprint },
      ttlMs: ttlMsFromMicros(Math.max(expire, untilFull)),
      reply,
    };
  }
  if (request.permits === 0) {
    const stored = Math.max(0, (now - emptyAt) / interval);
    const untilFull = Math.ceil(emptyAt + fullSpan - now);
    return unchanged([1, Math.floor(stored), untilFull, 0, Math.ceil(wait)]);
  }

  emptyAt = Math.ceil(emptyAt + request.permits * interval);
  const untilFull = emptyAt + fullSpan - now;
  return {
    state: { emptyAtMicros: emptyAt, fingerprint },
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

/**
 * The twin of rate-limit.found.lua: the state as the decision reads it, and the mark it writes
 * (`fingerprint`). Written under other options, E owes no more than this request's timeout
 * (< 0: no bound) and saves no more than a new bucket holds; written by a decorator of
 * another timeout, a decorator's request cuts it to its own timeout (rate-limit.model.ts).
 */
function asFound(
  state: RateLimitState | undefined,
  now: number,
  params: RateLimitParams,
  request: RateLimitRequest,
): { found: RateLimitState | undefined; fingerprint: string; cut: boolean } {
  // The fingerprint of the bucket's options: the last of its argv (options-fingerprint.ts).
  const options = rateLimitArgv(params)[4];
  const timeout = request.timeoutMicros;
  const mark = request.byDecorator ? `${options}:${exactString(timeout)}` : options;
  if (!state || state.fingerprint === mark) return { found: state, fingerprint: mark, cut: false };
  const was = state.fingerprint ?? '';
  const colon = was.indexOf(':');
  const [shape, by] = colon < 0 ? [was, ''] : [was.slice(0, colon), was.slice(colon + 1)];
  if (shape === options && (by === '' || !request.byDecorator)) {
    return { found: state, fingerprint: request.byDecorator ? mark : was, cut: false };
  }
  const stored = state.emptyAtMicros;
  const upper = timeout < 0 ? stored : Math.min(stored, now + timeout);
  const least = now - params.initialPermits * params.intervalMicros;
  const emptyAtMicros = Math.ceil(shape === options ? upper : Math.max(least, upper));
  return { found: { emptyAtMicros, fingerprint: mark }, fingerprint: mark, cut: true };
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
  return { state: { ...state, emptyAtMicros: emptyAt }, ttlMs, reply: done };
};
