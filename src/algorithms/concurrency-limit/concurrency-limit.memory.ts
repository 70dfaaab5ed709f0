import { NEVER_MICROS, RawReply } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { ttlWithBlock } from '../state-ops/blockable';
import { memberWeight, permitsOf, weightedMember } from '../permits';
import {
  ConcurrencyLimitParams,
  ConcurrencyLimitRequest,
  ConcurrencyLimitState,
} from './concurrency-limit.model';

/** The TypeScript twin of concurrency-limit.lua, on a map of member -> lease expiry (µs). */
export function concurrencyLimitStep(
  state: ConcurrencyLimitState | undefined,
  now: number,
  params: ConcurrencyLimitParams,
  request: ConcurrencyLimitRequest,
): MemoryStep<ConcurrencyLimitState> {
  const { max, leaseMicros: lease } = params;
  const permits = permitsOf(request);
  const member = weightedMember(request.id, permits);
  const leases = new Map<string, number>();
  let lastLease = -Infinity;
  for (const [id, expiry] of state ? state.leases : []) {
    if (expiry > now) leases.set(id, expiry);
    lastLease = Math.max(lastLease, expiry);
  }
  // A block past its end goes with the expired leases, as the Lua's ZREMRANGEBYSCORE drops it.
  const blockedUntil =
    state?.blockedUntilMicros !== undefined && state.blockedUntilMicros > now
      ? state.blockedUntilMicros
      : undefined;
  // A lease written under a longer `lease` ends one lease from now, as the Lua cuts it: unless
  // a block outlasts every lease (the Lua's last member), until it has ended.
  const cut = lastLease > now + lease && !(blockedUntil !== undefined && blockedUntil > lastLease);
  if (cut) for (const [id, expiry] of leases) leases.set(id, Math.min(expiry, now + lease));
  const untilLastExpiry = (): number => {
    let last = Math.max(now, blockedUntil ?? now);
    for (const expiry of leases.values()) last = Math.max(last, expiry);
    return last - now;
  };
  const slotsHeld = (): number => {
    let count = 0;
    for (const id of leases.keys()) count += memberWeight(id);
    return count;
  };
  const next = (): ConcurrencyLimitState =>
    blockedUntil === undefined ? { leases } : { leases, blockedUntilMicros: blockedUntil };
  /** A decision that takes nothing: the state as found, or as cut (the Lua writes the cut). */
  const unchanged = (reply: RawReply): MemoryStep<ConcurrencyLimitState> =>
    cut
      ? { state: next(), ttlMs: ttlMsFromMicros(untilLastExpiry()), reply }
      : { state, ttlMs: null, reply };

  if (request.op === 'release') {
    leases.delete(member);
    const reply: RawReply = [1, max - slotsHeld(), untilLastExpiry(), 0, 0];
    // Redis keeps the key's TTL; expiring with the last lease instead changes no decision.
    if (leases.size === 0 && blockedUntil === undefined) {
      return { state: undefined, ttlMs: null, reply };
    }
    return { state: next(), ttlMs: ttlMsFromMicros(untilLastExpiry()), reply };
  }

  if (blockedUntil !== undefined) {
    return unchanged([0, 0, untilLastExpiry(), blockedUntil - now, 0]);
  }

  let count = slotsHeld();
  const remaining = Math.max(0, max - count);
  if (permits > max) {
    return unchanged([0, remaining, untilLastExpiry(), NEVER_MICROS, 0]);
  }
  const holding = leases.has(member);
  // A request of 0 passes only where one of 1 would (it takes nothing).
  const need = Math.max(permits, 1);
  if (holding || count + need <= max) {
    if (permits === 0) return unchanged([1, max - count, untilLastExpiry(), 0, 0]);
    leases.set(member, now + lease);
    if (!holding) count += permits;
    const untilLast = untilLastExpiry();
    return {
      state: next(),
      ttlMs: ttlMsFromMicros(untilLast),
      reply: [1, max - count, untilLast, 0, 0],
    };
  }

  // Redis also drops the expired leases here; keeping them changes no later decision.
  const earliestFirst = [...leases].sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0));
  let freed = 0;
  for (const [id, expiry] of earliestFirst) {
    freed += memberWeight(id);
    if (count - freed + need <= max) {
      return unchanged([0, remaining, untilLastExpiry(), expiry - now, 0]);
    }
  }
  throw new Error('unreachable: the slots held free enough room for a request within max');
}

/**
 * The twin of state-ops.lua's block_of(zset_block, true): the block (µs from now) is
 * written over any earlier one (a concurrency key keeps no levels); the leases stay.
 */
export function concurrencyLimitBlockStep(
  state: ConcurrencyLimitState | undefined,
  now: number,
  _params: ConcurrencyLimitParams,
  micros: number,
  expiresAt: number | undefined,
): MemoryStep<ConcurrencyLimitState> {
  const until = now + micros;
  return {
    state: { leases: state?.leases ?? new Map(), blockedUntilMicros: until },
    ttlMs: ttlWithBlock(expiresAt, until, now),
    reply: [1, 0, 0, 0, 0],
  };
}
