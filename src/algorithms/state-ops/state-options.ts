import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import type { Resolvable, SettleFunction } from '../../contracts/limit-context';
import { Seconds } from '../duration';

/** Which outcomes of a request count against a limit (docs/design.md#state-and-cost). @publicApi */
export type CountMode = 'all' | 'failures' | 'successes';

/** `block` and `count`, the options of every limit decorator but `@ConcurrencyLimit`. */
export interface StateOptions {
  /**
   * How long a key stays denied after a denial, on every server, whatever the algorithm
   * would say: seconds or a duration such as '15m'. `Retry-After` gives the time left.
   * Requests refused meanwhile don't extend it.
   * Escalating: `[60, 300, 3600]` (or `['1m', '5m', '1h']`) blocks the first violation
   * 60 s, the next 300 s, then 3600 s each; a key quiet for the last step's length after
   * its block starts again at 60. A function may return either form.
   */
  block?: Resolvable<Seconds | readonly Seconds[]>;
  /**
   * Which requests count (default 'all'): with 'failures', a request answered with status
   * < 400 gives its permits back when it finishes; with 'successes', one answered >= 400,
   * thrown or aborted does. Permits are taken before the handler, so concurrent requests
   * never overshoot.
   */
  count?: CountMode;
  /**
   * The request's real cost, in permits, once its handler has finished: the permits taken
   * before it are corrected to it (the difference is given back, or the excess taken, which
   * may leave the key in debt: later requests wait or are denied until it is repaid). For
   * LLM tokens, bytes, query complexity. With `count`, an outcome that does not count costs 0.
   * @see docs/state-and-cost.md "Metering cost"
   */
  settle?: SettleFunction;
}

export const STATE_OPTION_NAMES = ['block', 'count'] as const;

/** Those of {@link STATE_OPTION_NAMES} that are a number to tune (an override may change it). */
export const TUNABLE_STATE_OPTIONS = ['block'] as const;

/** A programmatic limiter's key options (the factory's `KeyedOptions`). */
export const FACTORY_KEY_OPTIONS = ['key', 'prefix'] as const;

/** The count mode, or undefined for 'all' (nothing to track). */
export function countOption(value: unknown, where: string): 'failures' | 'successes' | undefined {
  if (value === undefined || value === 'all') return undefined;
  if (value === 'failures' || value === 'successes') return value;
  throw new LimiterConfigError(
    limiterMessages.invalidChoice(where, 'count', value, ['all', 'failures', 'successes']),
  );
}
