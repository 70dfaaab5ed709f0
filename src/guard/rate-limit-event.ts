import { Decision } from '../algorithms/decision';

/**
 * One guard decision, for metrics and logs (`onDecision` option). `limit` names the limit
 * (`@RateLimit on SmsController.send`); `decision` is absent when the store failed.
 *
 * @example
 * ```ts
 * const decisions = new Counter({ name: 'rate_limit_decisions_total', help: '...', labelNames: ['limit', 'outcome'] });
 * RateLimiterModule.forRoot({ onDecision: (e) => decisions.inc({ limit: e.limit, outcome: e.outcome }) })
 * ```
 * @publicApi
 */
export interface RateLimitEvent {
  outcome: 'allowed' | 'denied' | 'store-error';
  limit: string;
  key: string;
  decision?: Decision;
  error?: Error;
}
