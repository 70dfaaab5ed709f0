import { SKIP_METADATA } from '../rate-limiter.constants';

/**
 * Exempts a handler, or every handler of a class, from all limits.
 *
 * @example
 * ```ts
 * @SkipRateLimit()
 * @Get('health') health() { return 'ok'; }
 * ```
 * @publicApi
 */
export function SkipRateLimit(): ClassDecorator & MethodDecorator {
  return (target: object, _property?: string | symbol, descriptor?: PropertyDescriptor) => {
    Reflect.defineMetadata(SKIP_METADATA, true, descriptor ? (descriptor.value as object) : target);
  };
}
