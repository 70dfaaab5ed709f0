import { RawReply } from '../../../src/contracts/decision';
import { MemoryStep } from '../../../src/algorithms/limiter-algorithm';

export const SECOND = 1_000_000;
/** A start time far from 0, as real clocks are, so no arithmetic is exact by accident. */
export const T0 = 1_700_000_000 * SECOND;

const seconds = (micros: number) => `${micros / SECOND}s`;

/** `A2` allowed with 2 remaining, `A0 w1s` allowed after a wait of 1 s, `D0/4s` denied, retry after 4 s. */
export function describeReply([allowed, remaining, , retryAfter, wait]: RawReply): string {
  if (!allowed) return `D${remaining}/${seconds(retryAfter)}`;
  return wait > 0 ? `A${remaining} w${seconds(wait)}` : `A${remaining}`;
}

/**
 * Runs a memory twin on one key as the MemoryStore does (state dropped once its TTL has
 * passed), Guava-style: each call returns the decisions as short event strings.
 */
export function twinTrace<S, P, R>(
  step: (state: S | undefined, now: number, params: P, request: R) => MemoryStep<S>,
  params: P,
) {
  let state: S | undefined;
  let expiresAt = Infinity;
  let last: RawReply | undefined;
  const decide = (atSeconds: number, request: R): string => {
    const now = T0 + atSeconds * SECOND;
    const result = step(now < expiresAt ? state : undefined, now, params, request);
    if (result.state === undefined) {
      state = undefined;
      expiresAt = Infinity;
    } else if (result.ttlMs !== null) {
      state = result.state;
      expiresAt = now + result.ttlMs * 1000;
    }
    last = result.reply;
    return describeReply(result.reply);
  };
  return {
    /** The decisions of `requests`, one after another at `atSeconds`, joined by spaces. */
    at: (atSeconds: number, ...requests: R[]) =>
      requests.map((request) => decide(atSeconds, request)).join(' '),
    /** The last decision's reset (time until the limit is fully restored), in seconds. */
    lastReset: () => seconds(last![2]),
    /** Seconds from `atSeconds` until the state is dropped, or 'none' without state. */
    ttlFrom: (atSeconds: number) =>
      state === undefined ? 'none' : seconds(expiresAt - (T0 + atSeconds * SECOND)),
  };
}
