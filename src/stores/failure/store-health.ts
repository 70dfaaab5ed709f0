import type { LimiterStore } from '../limiter-store';

/** Whether the store answers now, and if not why; and whether the breaker skips it. */
export interface StoreHealth {
  up: boolean;
  /** Why it does not answer (a connection error, an error reply, a timeout), when down. */
  cause?: string;
  /** `'open'` while the store stopped answering and decisions skip it (circuit-breaker.ts). */
  breaker: 'open' | 'closed';
}

/**
 * Asks the store whether it can decide now: its start-up check (on Redis: the engine run on
 * no decisions, so an ACL that forbids it counts), within `storeTimeout`; a connection known to
 * be lost answers at once.
 */
export async function storeHealth(
  store: LimiterStore,
  storeTimeout: number,
  breakerOpen: boolean,
): Promise<StoreHealth> {
  const breaker = breakerOpen ? 'open' : 'closed';
  // Optional chaining: a custom store given as a plain object may lack these methods.
  if (store.isUnavailable?.()) {
    return { up: false, cause: store.unavailableCause?.() ?? 'the store is disconnected', breaker };
  }
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`no answer within storeTimeout (${storeTimeout} ms)`),
      storeTimeout,
    );
  });
  const answered = Promise.resolve()
    .then(() => store.check?.())
    .then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
  const cause = await Promise.race([answered, silent]);
  clearTimeout(timer);
  return cause === undefined ? { up: true, breaker } : { up: false, cause, breaker };
}
