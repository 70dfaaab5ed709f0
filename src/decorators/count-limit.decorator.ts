import { CountLimiterOptions } from '../algorithms/count-limit/count-limit.model';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { ResolvableOptions } from '../contracts/limit-context';
import { countLimitKind } from '../algorithms/count-limit/count-limit.definition';
import { limitOf } from './limit-metadata.accessor';
import { StateOptions } from '../algorithms/state-ops/state-options';
import { LeaseOptions } from '../algorithms/state-ops/lease-option';

/** Options of {@link CountLimit}: `limit` requests per `period` seconds. */
export interface CountLimitOptions
  extends
    ResolvableOptions<CountLimiterOptions>,
    KeyOptions,
    CostOptions,
    StateOptions,
    LeaseOptions {}

/**
 * Fixed-window counter: at most `limit` requests per `period` seconds.
 * Defaults: limit 1, period 1, prefix 'countLimit:', METHOD.
 *
 * @example
 * ```ts
 * @CountLimit({ key: '#{query.key}', limit: 2, period: 10 })
 * ```
 * @publicApi
 */
export function CountLimit(options: CountLimitOptions = {}): ClassDecorator & MethodDecorator {
  return limitOf(countLimitKind, options);
}
