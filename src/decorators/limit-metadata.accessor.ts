import { LimitKind } from '../algorithms/limit-kind';
import { LIMITS_METADATA, OVERLOAD_METADATA, SKIP_METADATA } from '../rate-limiter.constants';
import type { OverloadDeclaration } from './adaptive-concurrency-limit.decorator';
import { LimitDefinition } from '../contracts/limit-definition';
import { SkipMetadata } from './skip-rate-limit.decorator';

type Target = object;

/**
 * The decorator of an algorithm's definition (`kind`) with these options: its names come
 * from the definition, so no decorator repeats them. The kind itself and its `variants` are
 * recorded, so that compiling the limit needs no lookup by name. Metadata only: the module
 * binds the interceptor a limit needs after its handler (a USER key, a slot, `count`,
 * `settle`) to the handlers that have one (discovery/interceptor-binding.ts).
 */
export function limitOf(
  kind: LimitKind,
  options: object,
  variants: readonly LimitKind[] = [],
): ClassDecorator & MethodDecorator {
  const definition: LimitDefinition<LimitKind> = {
    kind: kind.name,
    kinds: [kind, ...variants],
    decorator: kind.decorator,
    options: { ...options },
  };
  return limitDecorator(definition);
}

/**
 * Builds a decorator that appends a limit to a class or a method, so several limits can
 * stand on one handler and on its class, and all of them apply. A plain `Symbol` key
 * and `Reflect` metadata keep it working on every Nest version in our peer range.
 */
function limitDecorator(definition: LimitDefinition): ClassDecorator & MethodDecorator {
  return (target: Target, _property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: Target = descriptor ? (descriptor.value as Target) : target;
    const existing: LimitDefinition[] = Reflect.getOwnMetadata(LIMITS_METADATA, holder) ?? [];
    Reflect.defineMetadata(LIMITS_METADATA, [...existing, definition], holder);
  };
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

/**
 * The `@AdaptiveConcurrencyLimit` of a handler: its method's own, else its class's (an
 * inherited one included), with what it stands on.
 */
export function readOverload(
  controller: Target,
  handler: Target,
): { declaration: OverloadDeclaration; onClass: boolean } | undefined {
  const own = Reflect.getOwnMetadata(OVERLOAD_METADATA, handler) as OverloadDeclaration | undefined;
  if (own) return { declaration: own, onClass: false };
  const onClass = Reflect.getMetadata(OVERLOAD_METADATA, controller) as
    OverloadDeclaration | undefined;
  return onClass ? { declaration: onClass, onClass: true } : undefined;
}
