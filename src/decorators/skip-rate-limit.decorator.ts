import { SKIP_METADATA } from '../rate-limiter.constants';

/** What `@SkipRateLimit` records: `true` skips every limit, a list only the limits so named. */
export type SkipMetadata = true | readonly string[];

/**
 * Exempts a handler, or every handler of a class, from its limits: all of them, or only
 * those with the given names (a module default's `name`, or a decorator's).
 *
 * A class-level skip covers the defaults and the class's own limits; a method that declares
 * a limit of a skipped name has it applied (the method's own decorators always count). A
 * class-level `@SkipRateLimit()` without names skips everything, method limits included.
 *
 * @example
 * ```ts
 * @SkipRateLimit()
 * @Get('health') health() { return 'ok'; }
 *
 * @SkipRateLimit('short')
 * @Get('report') report() { return 'ok'; }
 * ```
 * @publicApi
 */
export function SkipRateLimit(...names: string[]): ClassDecorator & MethodDecorator {
  return (target: object, _property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = descriptor ? (descriptor.value as object) : target;
    const existing = Reflect.getOwnMetadata(SKIP_METADATA, holder) as SkipMetadata | undefined;
    const skip: SkipMetadata =
      names.length === 0 || existing === true
        ? true
        : Object.freeze([...(existing ?? []), ...names]);
    Reflect.defineMetadata(SKIP_METADATA, skip, holder);
  };
}
