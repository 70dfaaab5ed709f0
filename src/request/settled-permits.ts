import { HandlerOutcome, LimitContext, SettleFunction } from '../contracts/limit-context';
import { reservedPermits, Taken } from './taken-permits';

/** How a request ended: failed or not (count modes), and what `settle` sees. */
export interface RequestOutcome extends HandlerOutcome {
  failed: boolean;
}

/** A `settle` that threw or returned anything but an integer >= 0; nothing is corrected. */
class InvalidSettledCostError extends Error {
  override readonly name = 'InvalidSettledCostError';
}

/**
 * The permits each limit keeps once its request's outcome is known: none
 * for an outcome its `count` does not count, else what its `settle` says the request cost,
 * else what it took. Each settle function runs once per request, so limits given the same
 * function agree on the cost. Every cost is known before any limit is corrected: one that
 * is invalid rejects with {@link InvalidSettledCostError} naming its limit, and then none is.
 */
export async function keptPermits(
  taken: readonly Taken[],
  outcome: RequestOutcome,
  ctx: () => LimitContext,
): Promise<number[]> {
  const costs = new Map<SettleFunction, Promise<unknown>>();
  const costOf = (settle: SettleFunction) => {
    let cost = costs.get(settle);
    if (!cost) {
      const { result, error } = outcome;
      costs.set(
        settle,
        (cost = new Promise((resolve) => resolve(settle(ctx(), { result, error })))),
      );
    }
    return cost;
  };
  return Promise.all(
    taken.map(async (t) => {
      const { count, settle } = t.limit;
      if (count && (count === 'failures') !== outcome.failed) return 0;
      if (!settle) return reservedPermits(t);
      let cost: unknown;
      try {
        cost = await costOf(settle);
      } catch (error) {
        throw new InvalidSettledCostError(`${t.limit.where}: settle threw: ${describe(error)}`);
      }
      if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) {
        throw new InvalidSettledCostError(
          `${t.limit.where}: settle must return an integer >= 0, got ${describe(cost)}`,
        );
      }
      return cost;
    }),
  );
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  return typeof value === 'string' ? `'${value}'` : String(value);
}
