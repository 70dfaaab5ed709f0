import { runInNewContext } from 'node:vm';
import { LIMIT_KINDS } from '../../src/algorithms/registry';
import { useTwinStores } from '../helpers/twin-stores';
import { quotaLimitParams } from '../../src/algorithms/quota-limit/quota-limit.model';
import { cycleNeighbourhoodAt } from '../../src/calendar/calendar-cycle';

/**
 * No value makes an engine call run unbounded, below the options' checks too: every
 * algorithm's decision (its retry time included) on parameters far outside the accepted
 * ranges ends at once, in the memory twin and in Redis, which keeps answering. The checks
 * refuse these values at start-up; this holds the engine itself to ending.
 */
const HUGE_OR_TINY = [1e-300, 2 ** 53, 31_536_000_000 * 1_000_000, 1e300];

const QUOTA = quotaLimitParams({ limit: 1, cycle: 'month' });

/** Raw parameters of each algorithm with every time (and rate interval) at `x`. */
const PARAMS: Record<string, (x: number) => object> = {
  rateLimit: (x) => ({ maxPermits: 1, intervalMicros: x, initialPermits: 1, expireMicros: x }),
  countLimit: (x) => ({ limit: 1, periodMs: x }),
  slidingWindowLimit: (x) => ({ limit: 1, windowMicros: x }),
  concurrencyLimit: (x) => ({ max: 1, leaseMicros: x }),
  leakyBucketLimit: (x) => ({ capacity: 1, intervalMicros: x }),
  approximateSlidingWindowLimit: (x) => ({ limit: 1, windowMicros: x }),
  quotaLimit: (x) => ({ ...QUOTA, idempotencyWindowMs: x }),
};

/** A request of `permits` as each algorithm takes it. */
const REQUEST: Record<string, (permits: number, i: number) => unknown> = {
  rateLimit: (permits) => ({ permits, timeoutMicros: 0 }),
  slidingWindowLimit: (permits, i) => ({ id: `r${i}`, permits }),
  concurrencyLimit: (permits, i) => ({ op: 'acquire', id: `r${i}`, permits }),
  quotaLimit: (permits, i) => ({
    permits,
    idempotencyKey: `r${i}`,
    cycles: cycleNeighbourhoodAt(QUOTA.rule, 1_700_000_000_000),
  }),
};
const requestOf = (name: string, permits: number, i: number) =>
  (REQUEST[name] ?? ((p: number) => ({ permits: p })))(permits, i);

describe('every engine call ends, whatever its parameters', () => {
  const twins = useTwinStores(1_700_000_000_000);
  let run = 0;

  it('the memory twins: allowed, denied, then a peek, within 2 s for every value', () => {
    for (const kind of LIMIT_KINDS) {
      for (const x of HUGE_OR_TINY) {
        const params = { ...PARAMS[kind.name](x), blockMicros: 0 };
        const now = 1_700_000_000_000_000;
        const steps = runInNewContext(
          'decide()',
          {
            decide: () => {
              let state: unknown;
              return [1, 1, 0].map((permits, i) => {
                const step = kind.algorithm.step(
                  state,
                  now,
                  params,
                  requestOf(kind.name, permits, i),
                );
                if (step.ttlMs !== null) state = step.state;
                return step.reply;
              });
            },
          },
          { timeout: 2000 },
        );
        expect([kind.name, x, steps.length]).toEqual([kind.name, x, 3]);
      }
    }
  });

  it('Redis: each call answers or fails, and Redis keeps answering PING', async () => {
    for (const kind of LIMIT_KINDS) {
      for (const x of HUGE_OR_TINY) {
        const params = { ...PARAMS[kind.name](x), blockMicros: 0 };
        const key = `ends:${kind.name}:${++run}`;
        for (const [i, permits] of [1, 1, 0].entries()) {
          const request = requestOf(kind.name, permits, i);
          await twins.redis
            .evaluate({ algorithm: kind.algorithm, key, params, request })
            .catch(() => undefined);
        }
        expect([kind.name, x, await twins.client.ping()]).toEqual([kind.name, x, 'PONG']);
      }
    }
  }, 30_000);
});
