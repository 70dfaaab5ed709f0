import { randomUUID } from 'node:crypto';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { staticPermits } from '../permits';
import { concurrency } from './concurrency.algorithm';
import { ConcurrencyLimiter } from './concurrency.limiter';
import { concurrencyOps } from './concurrency.ops';
import { ConcurrencyOptions, concurrencyParams, ConcurrencyRequest } from './concurrency.model';

/** DESIGN §3: a concurrency denial's Retry-After is a short fixed hint, not the lease. */
export const CONCURRENCY_RETRY_AFTER_MS = 1000;

/** `@ConcurrencyLimit` and `factory.concurrencyLimiter`. */
export const concurrencyKind: LimitKind<ConcurrencyOptions, ConcurrencyLimiter> = {
  name: 'concurrency',
  decorator: '@ConcurrencyLimit',
  defaultPrefix: 'concurrency:',
  optionNames: ['max', 'lease', 'permits'],
  algorithm: concurrency,
  // Built into the engine with the acquire; the guard never refunds a slot (it releases).
  ops: concurrencyOps,
  compile(options, where) {
    const params = concurrencyParams(options as unknown as ConcurrencyOptions, where);
    const cost = staticPermits(options.permits, params.max, where);
    return {
      algorithm: anyAlgorithm(concurrency),
      params,
      newRequest: (permits = cost): ConcurrencyRequest => ({
        op: 'acquire',
        id: randomUUID(),
        permits,
      }),
      holdsSlot: true,
      // A denial that outlasts any lease comes from a block(): its end is the real answer;
      // one that can never pass (more slots than max) has none.
      retryAfterMs: (decision) =>
        decision.retryAfterMs < 0 || decision.retryAfterMs > params.leaseMicros / 1000
          ? decision.retryAfterMs
          : CONCURRENCY_RETRY_AFTER_MS,
      releaseRequest: (acquire) => {
        const { id, permits } = acquire as ConcurrencyRequest;
        return { op: 'release', id, permits };
      },
    };
  },
  createLimiter: (source, key, options, where) =>
    new ConcurrencyLimiter(source, key, concurrencyParams(options, where)),
};
