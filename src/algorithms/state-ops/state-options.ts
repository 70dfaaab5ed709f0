import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import type { Resolvable } from '../../guard/limit-context';
import { BlockParams, blockMicros } from './state-ops.model';

/** Which outcomes of a request count against a limit (DESIGN §9). @publicApi */
export type CountMode = 'all' | 'failures' | 'successes';

/** `block` and `count`, the options of every limit decorator but `@ConcurrencyLimit`. */
export interface StateOptions {
  /**
   * Seconds a key stays denied after a denial, on every server, whatever the algorithm
   * would say; `Retry-After` gives the time left. Requests refused meanwhile don't extend it.
   * Escalating: `[60, 300, 3600]` blocks the first violation 60 s, the next 300 s, then
   * 3600 s each; a key quiet for the last step's length after its block starts again at 60.
   * A function may return either form.
   */
  block?: Resolvable<number | readonly number[]>;
  /**
   * Which requests count (default 'all'): with 'failures', a request answered with status
   * < 400 gives its permits back when it finishes; with 'successes', one answered >= 400,
   * thrown or aborted does. Permits are taken before the handler, so concurrent requests
   * never overshoot.
   */
  count?: CountMode;
}

export const STATE_OPTION_NAMES = ['block', 'count'] as const;

/**
 * The block parameters of a `block` option: seconds > 0, or a non-empty array of them
 * (escalating steps; one step is a single block). Nothing when absent.
 */
export function blockParams(value: unknown, where: string): BlockParams {
  if (value === undefined) return { blockMicros: 0 };
  if (!Array.isArray(value)) return { blockMicros: blockSeconds(value, where, 'block') };
  if (value.length === 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(
        where,
        'block',
        value,
        'seconds > 0, or a non-empty array of them',
      ),
    );
  }
  const steps = value.map((step: unknown, i) => blockSeconds(step, where, `block[${i}]`));
  return steps.length === 1
    ? { blockMicros: steps[0] }
    : { blockMicros: steps[0], blockStepsMicros: steps };
}

/** A positive finite number of seconds, as whole µs. */
function blockSeconds(value: unknown, where: string, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, name, value, 'a finite number of seconds > 0'),
    );
  }
  return blockMicros(value);
}

/** The count mode, or undefined for 'all' (nothing to track). */
export function countOption(value: unknown, where: string): 'failures' | 'successes' | undefined {
  if (value === undefined || value === 'all') return undefined;
  if (value === 'failures' || value === 'successes') return value;
  throw new LimiterConfigError(
    limiterMessages.invalidOption(where, 'count', value, "'all', 'failures' or 'successes'"),
  );
}
