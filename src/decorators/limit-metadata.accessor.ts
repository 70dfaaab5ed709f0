import { applyDecorators, NestInterceptor, Type, UseInterceptors } from '@nestjs/common';
import { LimitKind } from '../algorithms/limit-kind';
import { CountOutcomeInterceptor } from '../guard/count-outcome.interceptor';
import { RateLimitInterceptor } from '../guard/rate-limit.interceptor';
import { LimitType } from '../contracts/limit-type.enum';
import { LIMITS_METADATA, SKIP_METADATA } from '../rate-limiter.constants';
import { LimitDefinition } from '../contracts/limit-definition';
import { SkipMetadata } from './skip-rate-limit.decorator';

type Target = object;

/**
 * The decorator of an algorithm's definition (`kind`, registry.ts) with these options: its
 * names come from the definition, so no decorator repeats them. With `count: 'failures' |
 * 'successes'` or a `settle`, it also attaches the interceptor that settles each request
 * once its handler has finished (an invalid value fails start-up when the limit is
 * compiled); `interceptors` are what the kind always needs (concurrency's release).
 */
export function limitOf(
  kind: Pick<LimitKind, 'name' | 'decorator'>,
  options: object,
  ...interceptors: Type<NestInterceptor>[]
): ClassDecorator & MethodDecorator {
  const definition: LimitDefinition = {
    kind: kind.name,
    decorator: kind.decorator,
    options: { ...options },
  };
  const { count, settle } = definition.options;
  if ((count !== undefined && count !== 'all') || settle !== undefined) {
    interceptors.push(CountOutcomeInterceptor);
  }
  const limit = limitDecorator(definition);
  return interceptors.length ? applyDecorators(limit, UseInterceptors(...interceptors)) : limit;
}

/**
 * Builds a decorator that appends a limit to a class or a method, so several limits can
 * stand on one handler and on its class, and all of them apply. A plain `Symbol` key
 * and `Reflect` metadata keep it working on every Nest version in our peer range.
 */
function limitDecorator(definition: LimitDefinition): ClassDecorator & MethodDecorator {
  const waitsForUser = readsUser(definition) ? UseInterceptors(RateLimitInterceptor) : undefined;
  return (target: Target, property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: Target = descriptor ? (descriptor.value as Target) : target;
    const existing: LimitDefinition[] = Reflect.getOwnMetadata(LIMITS_METADATA, holder) ?? [];
    Reflect.defineMetadata(LIMITS_METADATA, [...existing, definition], holder);
    if (waitsForUser) {
      if (descriptor) waitsForUser(target, property!, descriptor);
      else (waitsForUser as ClassDecorator)(target as Function);
    }
  };
}

/**
 * A limit keyed by the user is decided after the app's guards by RateLimitInterceptor. Nest
 * runs the module's global one on controllers and resolvers only: bound here too, it also
 * runs on gateways (on HTTP the global one finds the work first; this one finds none).
 */
function readsUser({ options }: LimitDefinition): boolean {
  return (
    options.limitType === LimitType.USER ||
    (typeof options.key === 'string' && /#\{?\s*user\b/.test(options.key))
  );
}

/** The limits declared on a class (its own and inherited ones). */
export function readClassLimits(controller: Target): LimitDefinition[] {
  return (Reflect.getMetadata(LIMITS_METADATA, controller) as LimitDefinition[] | undefined) ?? [];
}

/** The limits declared on a method itself. */
export function readMethodLimits(handler: Target): LimitDefinition[] {
  return (Reflect.getOwnMetadata(LIMITS_METADATA, handler) as LimitDefinition[] | undefined) ?? [];
}

/** The limits of a handler: its class's first, then its own. */
export function readLimits(controller: Target, handler: Target): LimitDefinition[] {
  return [...readClassLimits(controller), ...readMethodLimits(handler)];
}

/** What `@SkipRateLimit` says on a class or on a method, if anything. */
export function readSkip(target: Target, own: boolean): SkipMetadata | undefined {
  return (
    own ? Reflect.getOwnMetadata(SKIP_METADATA, target) : Reflect.getMetadata(SKIP_METADATA, target)
  ) as SkipMetadata | undefined;
}

/** Whether every limit of the handler is skipped (`@SkipRateLimit()` without names). */
export function isSkipped(controller: Target, handler: Target): boolean {
  return readSkip(handler, true) === true || readSkip(controller, false) === true;
}
