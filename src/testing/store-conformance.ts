import { randomUUID } from 'node:crypto';
import { RateLimiterFactory } from '../limiter/rate-limiter.factory';
import type { LimiterStore } from '../stores/limiter-store';
import type { ConformanceCase } from './conformance/check-context';
import { decisionChecks } from './conformance/decision-checks';
import { expiryChecks } from './conformance/expiry-checks';
import { giveBackChecks } from './conformance/give-back-checks';

/** Options of {@link limiterStoreConformance}. @publicApi */
export interface LimiterStoreConformanceOptions {
  /**
   * The store under test, made for each check and closed after it. Each check uses keys of
   * its own, so every store made may share one backend (one Redis) and its state.
   */
  store: () => LimiterStore | Promise<LimiterStore>;
  /**
   * Lets the store's clock move on by `ms`, for the checks of expiry: by default it waits
   * `ms` of real time; for a store on a `ManualClock`, `(ms) => clock.advance(ms)`.
   */
  advance?: (ms: number) => void | Promise<void>;
}

/** One check of the store contract: a name for a test, and the test. @publicApi */
export interface LimiterStoreCheck {
  readonly name: string;
  /** Resolves when the store keeps the contract; rejects with what it did instead. */
  run(): Promise<void>;
}

const realTime = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The checks every {@link LimiterStore} passes, the package's own included: each algorithm's
 * decisions at exact counts, one by one and all at once; a request above the limit; refunds,
 * resets and blocks; concurrency slots released; state that expires. They drive the store
 * through the factory's limiters, as an app does, and need no test framework: make a test
 * of each, in Jest or Vitest alike.
 *
 * @example
 * ```ts
 * describe('MyStore', () => {
 *   for (const check of limiterStoreConformance({ store: () => new MyStore() })) {
 *     it(check.name, () => check.run());
 *   }
 * });
 * ```
 * @publicApi
 */
export function limiterStoreConformance(
  options: LimiterStoreConformanceOptions,
): LimiterStoreCheck[] {
  const cases: ConformanceCase[] = [...decisionChecks, ...giveBackChecks, ...expiryChecks];
  return cases.map((check) => ({
    name: check.name,
    run: () => runCase(check, options),
  }));
}

async function runCase(check: ConformanceCase, options: LimiterStoreConformanceOptions) {
  const store = await options.store();
  const factory = new RateLimiterFactory(store, { keyPrefix: `conformance:${randomUUID()}:` });
  const advance = options.advance ?? realTime;
  try {
    await check.run({ factory, advance: async (ms) => advance(ms) });
  } finally {
    factory.onApplicationShutdown();
    await store.close();
  }
}
