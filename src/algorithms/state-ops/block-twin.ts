import { ttlMsFromMicros } from '../limiter-algorithm';
import { Blockable, StateType } from './state-ops.model';

/** Milliseconds of TTL that keep a state until `expiresAt` and a block until `until`, as the Lua's PX. */
export function ttlWithBlock(expiresAt: number | undefined, until: number, now: number): number {
  return Math.max(pttlOf(expiresAt, now), ttlMsFromMicros(until - now));
}

/** What PTTL answers for a key expiring at `expiresAt`: whole ms, or -2 for no key. */
export function pttlOf(expiresAt: number | undefined, now: number): number {
  return expiresAt === undefined ? -2 : Math.floor((expiresAt - now) / 1000);
}

/**
 * The twin of `hide_block` (string-block.lua, zset-block.lua): the algorithm's own state and
 * when it expires, once the block is taken out of the key.
 */
export function hiddenBlock<S>(
  state: Blockable<S>,
  stateType: StateType,
  now: number,
  expiresAt: number | undefined,
): { inner: S | undefined; expiresAt: number | undefined } {
  const { inner, level, innerExpiresAtMicros: innerExpires } = state;
  if (stateType === 'string' && level !== undefined && innerExpires !== undefined) {
    if (inner === undefined || now >= innerExpires)
      return { inner: undefined, expiresAt: undefined };
    return { inner, expiresAt: now + ttlMsFromMicros(innerExpires - now) * 1000 };
  }
  return { inner, expiresAt };
}

/**
 * The twin of `write_block(until, level, keepUntil)`: the algorithm's state `inner` (expiring
 * at `expiresAt`) with a block ending at `until`, and the key's new TTL.
 */
export function withBlock<S>(
  inner: S | undefined,
  stateType: StateType,
  now: number,
  until: number,
  expiresAt: number | undefined,
  level: number | undefined,
  keepUntil = until,
): { state: Blockable<S>; ttlMs: number } {
  const state: Blockable<S> = { inner, blockedUntilMicros: until };
  if (level !== undefined) {
    state.level = level;
    const pttl = pttlOf(expiresAt, now);
    if (stateType === 'string' && inner !== undefined && pttl >= 0) {
      state.innerExpiresAtMicros = now + pttl * 1000;
    }
  }
  return { state, ttlMs: ttlWithBlock(expiresAt, keepUntil, now) };
}

/** A state with its block taken out, and when it expires then. */
export interface HiddenState<S> {
  state: S | undefined;
  expiresAt: number | undefined;
}

/** The twin of hiding a blockable acquire's block (string-block.lua, zset-block.lua). */
export function hideBlock<S>(
  stateType: StateType,
): (state: Blockable<S>, now: number, expiresAt: number | undefined) => HiddenState<Blockable<S>> {
  return (state, now, expiresAt) => {
    if (state.blockedUntilMicros === undefined) return { state, expiresAt };
    const hidden = hiddenBlock(state, stateType, now, expiresAt);
    return {
      state: hidden.inner === undefined ? undefined : { inner: hidden.inner },
      expiresAt: hidden.inner === undefined ? undefined : hidden.expiresAt,
    };
  };
}
