import { Logger } from '@nestjs/common';
import { Decision } from './decision';

/**
 * What happened to one limit on one request (or one programmatic decision):
 * - `allowed`, `denied`: decided by the store (or the in-memory fallback);
 * - `shadow-denied`: a `shadow` limit that would have refused; the request went on;
 * - `skipped`: a `skip` predicate said the limit does not apply; nothing was counted;
 * - `store-error`: the store failed or exceeded `storeTimeout`; `onStoreError` applied;
 * - `undone`: the limit allowed, but another limit of the request denied it (or the store
 *   could not answer under `onStoreError: 'deny'`), so what it took was given back (all or
 *   nothing): the request counted nowhere.
 * - `quota-soft-limit`: a calendar quota's usage reached its `softLimit` with this request,
 *   told once per cycle and key across every server (after the request's `allowed` event):
 *   the hook for "you have used 80 % of your plan".
 * - `overload`: the overload guard refused the request (503) before any limit was decided;
 *   `priority` says its class.
 *
 * @publicApi
 */
export type RateLimitOutcome =
  | 'allowed'
  | 'denied'
  | 'shadow-denied'
  | 'skipped'
  | 'store-error'
  | 'undone'
  | 'quota-soft-limit'
  | 'overload';

/**
 * One outcome, for metrics and logs (`onDecision` option). `limit` names the limit
 * (`@RateLimit on SmsController.send`, or `RateLimiterFactory` for programmatic limiters).
 * `key` is absent on `skipped` (a skipped limit reads nothing of the request); `decision`
 * on `skipped` and `store-error` (on `undone` it is the allowing decision that was undone); `waitMs` is set on `allowed` (the wait a token bucket
 * imposed, usually 0).
 *
 * @example
 * ```ts
 * const decisions = new Counter({ name: 'rate_limit_decisions_total', help: '...', labelNames: ['limit', 'outcome'] });
 * RateLimiterModule.forRoot({ onDecision: (e) => decisions.inc({ limit: e.limit, outcome: e.outcome }) })
 * ```
 * @publicApi
 */
export interface RateLimitEvent {
  outcome: RateLimitOutcome;
  limit: string;
  /**
   * The limit's name (its decorator's `name`, else derived); for programmatic limiters the
   * algorithm's name (`countLimit`, `rateLimit`...). What metrics count by.
   */
  name?: string;
  key?: string;
  decision?: Decision;
  waitMs?: number;
  error?: Error;
  /** On `overload`: the request's class, `'critical'`, `'normal'` or `'sheddable'`. */
  priority?: string;
}

export type DecisionListener = (event: RateLimitEvent) => void;

/** Between a limit's decorator and its handler in an event's `limit` (`@CountLimit on Cls.m`). */
export const HANDLER_AFTER = ' on ';

/** The handler (`Cls.method`) an event's `limit` names; undefined for a programmatic limiter. */
export function handlerOf(limit: string): string | undefined {
  const at = limit.lastIndexOf(HANDLER_AFTER);
  return at < 0 ? undefined : limit.slice(at + HANDLER_AFTER.length);
}

/** The event of a decision the store made. */
export function decisionEvent(
  limit: string,
  key: string,
  decision: Decision,
  shadow = false,
  name?: string,
): RateLimitEvent {
  if (decision.allowed)
    return { outcome: 'allowed', limit, name, key, decision, waitMs: decision.waitMs };
  return { outcome: shadow ? 'shadow-denied' : 'denied', limit, name, key, decision };
}

/** What one limit decided for a request, as far as events need it. */
interface DecidedLimit<L extends { where: string; name: string; shadow: boolean }> {
  limit: L;
  key: string;
  decision: Decision;
}

/**
 * One event per decided limit of a request, once its fate is known: on a refused request,
 * what the allowed limits took is given back (all or nothing), so they are `undone`.
 * `report` hears each event with its limit; absent, no event is built.
 */
export function reportOutcomes<L extends { where: string; name: string; shadow: boolean }>(
  report: ((event: RateLimitEvent, limit: L) => void) | undefined,
  decided: readonly DecidedLimit<L>[],
  refused: boolean,
): void {
  if (!report) return;
  for (const { limit, key, decision } of decided) {
    const event: RateLimitEvent =
      refused && decision.allowed
        ? { outcome: 'undone', limit: limit.where, name: limit.name, key, decision }
        : decisionEvent(limit.where, key, decision, limit.shadow, limit.name);
    report(event, limit);
    const soft =
      event.outcome === 'allowed' && softLimitEvent(limit.where, key, decision, limit.name);
    if (soft) report(soft, limit);
  }
}

/** The `quota-soft-limit` event of a quota's decision that reached its soft limit, if it did. */
export function softLimitEvent(
  limit: string,
  key: string,
  decision: Decision,
  name?: string,
): RateLimitEvent | undefined {
  if (!decision.quota?.softLimitReached) return undefined;
  return { outcome: 'quota-soft-limit', limit, name, key, decision };
}

/** Calls the listener; what it throws is logged, never thrown into the request. */
export function emitEvent(
  listener: DecisionListener | undefined,
  event: RateLimitEvent,
  logger: Logger,
): void {
  if (!listener) return;
  try {
    listener(event);
  } catch (error) {
    logger.error(`onDecision threw: ${(error as Error)?.message ?? String(error)}`);
  }
}
