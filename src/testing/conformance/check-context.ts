import type { RateLimiterFactory } from '../../limiter/rate-limiter.factory';

/** What one check runs on: a factory on the store under test, with keys of its own. */
interface CheckContext {
  /** Limiters on the store, under a key prefix no other check uses. */
  factory: RateLimiterFactory;
  /** Lets the store's clock move on by at least `ms`. */
  advance(ms: number): Promise<void>;
}

/** One property of the store contract, checked on a store of its own. */
export interface ConformanceCase {
  name: string;
  run(context: CheckContext): Promise<void>;
}

/** Throws, naming what was checked, when `actual` is not `expected` (compared as JSON). */
export function same(what: string, actual: unknown, expected: unknown): void {
  const got = JSON.stringify(actual);
  const wanted = JSON.stringify(expected);
  if (got !== wanted) throw new Error(`${what}: expected ${wanted}, got ${got}`);
}

/** Throws, naming what was checked, unless `low < value <= high`. */
export function within(what: string, value: number, low: number, high: number): void {
  if (!(value > low && value <= high)) {
    throw new Error(`${what}: expected more than ${low} and at most ${high}, got ${value}`);
  }
}
