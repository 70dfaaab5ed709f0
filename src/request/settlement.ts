import { ExecutionContext, Logger } from '@nestjs/common';
import { rawResponse } from './concurrency-release';
import { RequestLedger, RequestOutcome, Settle } from './request-ledger';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { LimitContext, SettleFunction } from '../contracts/limit-context';
import { correctTaken, reservedPermits, Taken } from './taken-permits';
import { GuardedRequest } from '../context/http-context';
import { RequestLimitContext } from '../context/request-limit-context';

/**
 * For limits with `count: 'failures' | 'successes'` or `settle`: the
 * permits were taken before the handler, so concurrent requests never overshoot; once the
 * request's outcome is known, each limit keeps what it counts (none for an outcome it does
 * not count, else the settled cost, else what it took), all of the request's limits
 * together (see correctTaken). The outcome is settled once:
 * - once the handler has started, by the interceptor the module binds there
 *   (RateLimitInterceptor): the handler's own outcome decides, whenever its client left;
 * - before that, by the response's end, for what the handler never saw (a later guard's
 *   403): its status decides. A client that leaves decides nothing: if the handler then
 *   runs, its outcome settles; if nothing ever answers, the permits stay taken.
 */
export function settleAfterHandler(
  context: ExecutionContext,
  response: unknown,
  taken: readonly Taken[],
  store: FailurePolicyStore,
  logger: Logger,
  /** What `settle` functions are given the context of. */
  read: Pick<GuardedRequest, 'request' | 'facts'>,
): void {
  const settled = taken.filter((t) => t.decision.allowed && (t.limit.count || t.limit.settle));
  if (settled.length === 0) return;
  const ctx = () => new RequestLimitContext(context, read.request, read.facts);
  let done: Promise<boolean> | undefined;
  const settle: Settle = (outcome) =>
    (done ??= keptPermits(settled, outcome, ctx).then(
      async (kept) => {
        await correctTaken(store, settled, kept, logger);
        return true;
      },
      (error: unknown) => {
        logger.error((error as Error)?.message ?? String(error));
        return false;
      },
    ));
  const ledger = RequestLedger.of(context);
  ledger?.leave('settle', settle);
  const raw = rawResponse(response);
  if (!raw) return;
  whenAnswered(raw, (status) => {
    // Still pending: the handler never started, and the response tells how it ended.
    if (ledger && !ledger.holds('settle', settle)) return;
    ledger?.take('settle');
    void settle({ failed: status >= 400 });
  });
}

/**
 * Runs `then` with the response's status once the handler has answered: when the response
 * is sent in full, or, if its client left first, as soon as the status is decided (the
 * head was sent, or the handler ends the response later: Node then emits no `finish`).
 * A handler that never answers a client that left never runs it. `raw` is Node's response.
 */
export function whenAnswered(raw: any, then: (status: number) => void): void {
  if (raw.writableFinished) return then(raw.statusCode);
  const afterClose = () => {
    if (raw.writableFinished) return; // 'finish' told it
    if (raw.headersSent || raw.writableEnded) return then(raw.statusCode);
    // The client left before the handler answered: the handler's own answer still decides.
    onFirstCall(raw, ['writeHead', 'end'], () => then(raw.statusCode));
  };
  if (raw.closed || raw.destroyed) return afterClose();
  raw.once('finish', () => then(raw.statusCode));
  raw.once('close', afterClose);
}

/** Calls `then` after the first call of any of `methods` on `target`; the methods are then restored. */
function onFirstCall(target: any, methods: readonly string[], then: () => void): void {
  // A middleware may have wrapped them on the instance (compression does): put those back.
  const own = methods.map((name) => (Object.hasOwn(target, name) ? target[name] : undefined));
  const restore = () =>
    methods.forEach((name, i) => (own[i] ? (target[name] = own[i]) : delete target[name]));
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      restore();
      const returned = original.apply(this, args);
      then();
      return returned;
    };
  }
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
async function keptPermits(
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
