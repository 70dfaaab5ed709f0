import { HANDLER_AFTER } from '../contracts/rate-limit-event';
import { CompiledAlgorithm, LimitKind } from '../algorithms/limit-kind';
import { kindsNamed } from '../algorithms/registry';
import { LimitDefinition } from '../contracts/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { SettleFunction, SkipPredicate } from '../contracts/limit-context';
import { resolverOf, Resolver } from './resolvable-options';
import { refuseUnknownOptions } from '../algorithms/option-rules';
import { compileKey, limitTypeOf, RequestFacts } from '../keys/compile-key';
import { KeyForm } from '../keys/key-form';
import { StoreErrorPolicy } from '../contracts/store-error-policy';

/** What every limit of a handler has, whether its options are values or functions. */
interface LimitBase {
  /** The kind's name (a variant's own, such as the approximate sliding window). */
  kind: string;
  /** `@RateLimit on SmsController.send`, for messages. */
  where: string;
  /** The limit's name, unique per handler (the decorator's `name`, else derived). */
  name: string;
  /** Every key {@link key} can return, to find limits of two kinds that could share one. */
  keyForm: KeyForm;
  /** Every key it returns for a value hashed for length, when a request value can be long. */
  hashedKeyForm?: KeyForm;
  key(facts: RequestFacts): string;
  /** The decorator's `skip` predicate, if any. */
  skip?: SkipPredicate;
  /** Counted but never enforced (the decorator's `shadow`, else the module's). */
  shadow: boolean;
  /** What a decision the store could not make does (the decorator's; absent: the module's). */
  onStoreError?: StoreErrorPolicy;
  /** The request's real cost once its handler has finished (the decorator's `settle`). */
  settle?: SettleFunction;
  /** Its key depends on the user (USER, or a template that reads `user`). */
  readsUser: boolean;
  /**
   * It has work after the guard: waiting for the user the app's guards set, giving back a
   * slot, or settling an outcome (`count`, `settle`). The module binds RateLimitInterceptor
   * only to handlers with such a limit.
   */
  afterHandler: boolean;
}

/** One limit of one handler, validated and compiled at start-up. */
export interface CompiledLimit extends LimitBase, CompiledAlgorithm {
  resolve?: undefined;
}

/** A limit with options that are functions of the request: its algorithm run is built per request. */
export interface ResolvableLimit extends LimitBase {
  /** The limit compiled for this request's values (one object per combination of them). */
  resolve: Resolver<CompiledLimit>;
}

/** A limit as the plan holds it. */
export type PlannedLimit = CompiledLimit | ResolvableLimit;

const KEY_OPTION_NAMES = [
  'name',
  'key',
  'prefix',
  'limitType',
  'skip',
  'shadow',
  'settle',
  'onStoreError',
];
const STORE_ERROR_POLICIES: readonly StoreErrorPolicy[] = ['allow', 'deny', 'fallback'];

/**
 * What decides a limit's keys: two limits of one kind with the same spec on one handler
 * (a class-level and a method-level `@CountLimit`, or two windows) would share their keys.
 */
export function keySpecOf(definition: LimitDefinition): string {
  const { options } = definition;
  const kind = kindOf(definition);
  return [
    kind.name,
    prefixOf(definition, kind),
    limitTypeOf(options),
    String(options.key ?? ''),
  ].join('\0');
}

/**
 * The definition's kind, then its variants: as its decorator recorded them, or, for a
 * module default, as the registry lists the kind it names.
 */
function kindsOf(definition: LimitDefinition): readonly LimitKind[] {
  return (definition as LimitDefinition<LimitKind>).kinds ?? kindsNamed(definition.kind);
}

/** The definition's kind, or the variant its options select. */
export function kindOf(definition: LimitDefinition): LimitKind {
  const [kind, ...variants] = kindsOf(definition);
  const selected = variants.find((variant) => definition.options[variant.variant!.when]);
  if (selected) return selected;
  if (!kind)
    throw new LimiterConfigError(
      `${definition.decorator}: unknown limit kind '${definition.kind}'`,
    );
  return kind;
}

function prefixOf(definition: LimitDefinition, kind: LimitKind): string {
  return definition.options.prefix ?? kind.defaultPrefix;
}

function policyNameOf(prefix: string, kind: LimitKind): string {
  return prefix.replace(/:$/, '') || kind.name;
}

/** A limit's name when its decorator gives none: its prefix without the colon (`countLimit`). */
export function defaultNameOf(definition: LimitDefinition): string {
  const kind = kindOf(definition);
  const prefix = prefixOf(definition, kind);
  return typeof prefix === 'string' ? policyNameOf(prefix, kind) : kind.name;
}

/**
 * Compiles one limit. `occurrence` counts the limits of the same kind and key spec on the
 * handler (see {@link keySpecOf}); from the second on, it goes into the key after the
 * prefix (`countLimit:#2:Cls.m`), so each limit keeps its own state.
 */
export function compileLimit(
  definition: LimitDefinition,
  handlerName: string,
  keyPrefix: string,
  occurrence = 1,
  /** Told once per limit when an IP key finds no IP (see {@link warnOnEmptyIp}). */
  warn: (message: string) => void = () => undefined,
  shadowByDefault = false,
  /** The name when the decorator gives none (see {@link defaultNameOf}). */
  derivedName = defaultNameOf(definition),
): PlannedLimit {
  // No handler: a module default checked at start-up, named by its place in `defaults`.
  const where = handlerName
    ? `${definition.decorator}${HANDLER_AFTER}${handlerName}`
    : definition.decorator;
  const kind = kindOf(definition);
  const { options } = definition;
  // A variant's switch (`approximate`) is an option of the kind it varies.
  const switches = kindsOf(definition).map((each) => each.variant?.when ?? '');
  const known = [...KEY_OPTION_NAMES, ...kind.optionNames, ...switches.slice(1)];
  refuseUnknownOptions(options, new Set(known), where);
  const prefix = prefixOf(definition, kind);
  if (typeof prefix !== 'string') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'prefix', prefix, 'a string'),
    );
  }
  const { skip, shadow = shadowByDefault } = options;
  if (skip !== undefined && typeof skip !== 'function') {
    throw new LimiterConfigError(limiterMessages.invalidOption(where, 'skip', skip, 'a function'));
  }
  if (typeof shadow !== 'boolean') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'shadow', shadow, 'a boolean'),
    );
  }
  const settle = settleOption(options.settle, kind, where);
  const { onStoreError } = options;
  if (onStoreError !== undefined && !STORE_ERROR_POLICIES.includes(onStoreError)) {
    throw new LimiterConfigError(
      limiterMessages.invalidChoice(where, 'onStoreError', onStoreError, STORE_ERROR_POLICIES),
    );
  }
  const { name = derivedName } = options;
  if (typeof name !== 'string' || name === '') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'name', name, 'a non-empty string'),
    );
  }
  const base: Omit<LimitBase, 'afterHandler'> = {
    skip,
    shadow,
    settle,
    onStoreError,
    where,
    name,
    kind: kind.name,
    ...compileKey(
      options,
      where,
      handlerName,
      keyPrefix + prefix + (occurrence > 1 ? `#${occurrence}:` : ''),
      warn,
      kind.name,
    ),
  };
  // A run unknown at start-up (its probe refused) may need it: bound, to be safe.
  const afterHandler = (run: CompiledAlgorithm | undefined): boolean =>
    base.readsUser || settle !== undefined || !run || !!run.holdsSlot || run.count !== undefined;
  // Values only, the usual case: compiled once, here. Functions of the request are resolved
  // per request (resolvable-options.ts).
  if (!kind.optionNames.some((option) => typeof options[option] === 'function')) {
    const run = kind.compile(options, where);
    return Object.freeze({ ...base, ...run, afterHandler: afterHandler(run) });
  }
  const { resolve, probe } = resolverOf(kind, options, where, (run) =>
    limitForRequest(base, run, afterHandler(run)),
  );
  return { ...base, resolve, afterHandler: afterHandler(probe) };
}

/**
 * A limit compiled for one request: the run's fields over the limit's base, which it
 * inherits rather than copies, since one is made for every request and V8 builds an object
 * spread from several others slowly.
 */
function limitForRequest(
  base: Omit<LimitBase, 'afterHandler'>,
  run: CompiledAlgorithm,
  afterHandler: boolean,
): CompiledLimit {
  const limit = Object.assign(Object.create(base) as CompiledLimit, run);
  limit.afterHandler = afterHandler;
  return limit;
}

/**
 * A `settle` function, on a kind that can correct what it took both ways: give back (its
 * refund) and take more (its charge). Concurrency slots are all given back anyway.
 */
function settleOption(value: unknown, kind: LimitKind, where: string): SettleFunction | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'settle', value, 'a function'),
    );
  }
  if (!settles(kind)) throw new LimiterConfigError(limiterMessages.settleUnsupported(where));
  return value as SettleFunction;
}

/** Whether a kind can correct what it took both ways, as `settle` needs. */
export function settles(kind: LimitKind): boolean {
  return !!kind.ops?.refund && !!kind.ops.charge;
}
