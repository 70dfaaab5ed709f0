import type { Decision } from '../../../contracts/decision';

/**
 * Redis's clock (µs of TIME) when the engine call that made a decision ran, kept beside the
 * decision rather than in it (no caller of the public API needs it): a lease names the
 * window its permits were taken in by that window's end on Redis's clock, which no stall of
 * the app can make stale.
 */
const redisTimes = new WeakMap<Decision, number>();

export function noteRedisTime(decision: Decision, redisMicros: number): void {
  if (Number.isFinite(redisMicros)) redisTimes.set(decision, redisMicros);
}

export function redisTimeOf(decision: Decision): number | undefined {
  return redisTimes.get(decision);
}
