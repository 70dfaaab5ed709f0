import { FixedWindowOptions } from './fixed-window.model';
import { KeyOptions } from '../../decorators/limit-definition';
import { ResolvableOptions } from '../../guard/limit-context';
import { limitDecorator } from '../../decorators/limit-metadata.accessor';

/** Options of {@link CountLimit}: `limit` requests per `period` seconds. */
export interface CountLimitOptions extends ResolvableOptions<FixedWindowOptions>, KeyOptions {}

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
  return limitDecorator({ kind: 'fixedWindow', decorator: '@CountLimit', options: { ...options } });
}
