import { OVERLOAD_METADATA } from '../rate-limiter.constants';
import type { AdaptiveConcurrencyLimitOptions } from '../overload/overload.options';

/** What `@AdaptiveConcurrencyLimit` records: its options, one object per declaration. */
export interface OverloadDeclaration {
  readonly options: AdaptiveConcurrencyLimitOptions;
}

/**
 * Protects the server itself: limits the requests in flight in this process, for the
 * handler or for every handler of the class together, to a limit learned from their
 * latency. A request over the limit gets 503 with `Retry-After` (no store is asked);
 * `sheddable` ones are refused first, then `normal` ones, and `reserve` is kept for
 * `critical` ones. A method's declaration wins over its class's, which wins over the
 * module's `overload`.
 *
 * @example
 * ```ts
 * @AdaptiveConcurrencyLimit({ priority: '#{headers["x-priority"]}', reserve: 0.3 })
 * ```
 * @see docs/overload.md
 * @publicApi
 */
export function AdaptiveConcurrencyLimit(
  options: AdaptiveConcurrencyLimitOptions = {},
): ClassDecorator & MethodDecorator {
  const declaration: OverloadDeclaration = Object.freeze({ options });
  return (target: object, _property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = descriptor ? (descriptor.value as object) : target;
    Reflect.defineMetadata(OVERLOAD_METADATA, declaration, holder);
  };
}
