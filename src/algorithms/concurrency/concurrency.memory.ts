import { RawReply } from '../decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { ConcurrencyParams, ConcurrencyRequest, ConcurrencyState } from './concurrency.model';

/** The TypeScript twin of concurrency.lua, on a map of id -> lease expiry (µs). */
export function concurrencyStep(
  state: ConcurrencyState | undefined,
  now: number,
  params: ConcurrencyParams,
  request: ConcurrencyRequest,
): MemoryStep<ConcurrencyState> {
  const { max, leaseMicros: lease } = params;
  const leases = new Map<string, number>();
  for (const [id, expiry] of state ? state.leases : []) {
    if (expiry > now) leases.set(id, expiry);
  }
  // A block past its end goes with the expired leases, as the Lua's ZREMRANGEBYSCORE drops it.
  const blockedUntil =
    state?.blockedUntilMicros !== undefined && state.blockedUntilMicros > now
      ? state.blockedUntilMicros
      : undefined;
  const untilLastExpiry = (): number => {
    let last = Math.max(now, blockedUntil ?? now);
    for (const expiry of leases.values()) last = Math.max(last, expiry);
    return last - now;
  };
  const next = (): ConcurrencyState =>
    blockedUntil === undefined ? { leases } : { leases, blockedUntilMicros: blockedUntil };

  if (request.op === 'release') {
    leases.delete(request.id);
    const reply: RawReply = [1, max - leases.size, untilLastExpiry(), 0, 0];
    // Redis keeps the key's TTL; expiring with the last lease instead changes no decision.
    if (leases.size === 0 && blockedUntil === undefined) {
      return { state: undefined, ttlMs: null, reply };
    }
    return { state: next(), ttlMs: ttlMsFromMicros(untilLastExpiry()), reply };
  }

  if (blockedUntil !== undefined) {
    return { state, ttlMs: null, reply: [0, 0, untilLastExpiry(), blockedUntil - now, 0] };
  }

  if (leases.has(request.id) || leases.size < max) {
    leases.set(request.id, now + lease);
    const untilLast = untilLastExpiry();
    return {
      state: next(),
      ttlMs: ttlMsFromMicros(untilLast),
      reply: [1, max - leases.size, untilLast, 0, 0],
    };
  }

  // Redis also drops the expired leases here; keeping them changes no later decision.
  const expiries = [...leases.values()].sort((a, b) => a - b);
  const retryAfter = expiries[leases.size - max] - now;
  return { state, ttlMs: null, reply: [0, 0, untilLastExpiry(), retryAfter, 0] };
}
