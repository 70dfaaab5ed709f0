import { Decision } from '../contracts/decision';
import { anyAlgorithm, CompiledAlgorithm, LimitKind } from './limit-kind';
import { DecisionSource } from './decision-source';
import { EngineAlgorithm } from './engine-algorithm';
import { libraryEntries } from './library-entries';
import { staticPermits } from './permits';
import { peekOf, resetOf, StateOps } from './state-ops/state-ops';
import { FACTORY_KEY_OPTIONS } from './state-ops/state-options';
import { StateType } from './state-ops/state-ops.model';

/**
 * The hooks of an algorithm whose requests hold slots until their work ends (concurrency)
 * rather than take permits from a window: its acquire keeps its own block in its state, so it
 * has no `block` or `count` option and no refund or charge; the guard releases a slot instead
 * of refunding it.
 */
export interface SlotHooks<P, R, S> {
  /** The request that gives back what the acquire `acquire` took. */
  release(acquire: R): R;
  /** Blocks the key: the acquire's own Lua and twin keep the block. */
  block(acquire: EngineAlgorithm<P, R, S>): EngineAlgorithm<P, number, S>;
  /** What a peek sees of the state, where the acquire keeps more in it (its block). */
  peekState?: Parameters<typeof peekOf<P, R, S>>[2];
  /** The `Retry-After` of a denial, where the decision's own says little. */
  retryAfterMs?(decision: Decision, params: P): number;
  /** How long a slot lasts unless its acquire is sent again (same id), which renews it. */
  leaseMs(params: P): number;
}

/** What defineAlgorithm's definition (define-algorithm.ts) gives the part it shares with this file. */
interface SlotsDefinition<O, P, R, L> {
  name: string;
  decorator: string;
  prefix: string;
  options: readonly string[];
  requestOptions: readonly string[];
  /** Those of {@link options} that are times in seconds (or duration strings). */
  durations?: readonly string[];
  stateType: StateType;
  params(options: O, where: string): P;
  permitRequest?(permits: number): R;
  limiter(source: DecisionSource, key: string, params: P): L;
}

/** What a slot algorithm's definition derives: the acquire as written, its operations, its kind. */
export interface DefinedSlots<O, P, R, S, L> {
  definition: SlotsDefinition<O, P, R, L>;
  /** The acquire, which keeps its block itself. */
  algorithm: EngineAlgorithm<P, R, S>;
  /** Peek, reset and block; a slot is released, never refunded. */
  ops: StateOps<P, R, S, S>;
  kind: LimitKind<O, L>;
}

/** defineAlgorithm's part for an algorithm with {@link SlotHooks}. */
export function defineSlots<O, P, R, S, L>(
  definition: SlotsDefinition<O, P, R, L>,
  algorithm: EngineAlgorithm<P, R, S>,
  slots: SlotHooks<P, R, S>,
): DefinedSlots<O, P, R, S, L> {
  const ops: StateOps<P, R, S, S> = {
    peek: peekOf(algorithm, definition.stateType, slots.peekState),
    reset: resetOf(algorithm),
    block: slots.block(algorithm),
  };
  const { permitRequest } = definition;
  const newRequest =
    (cost: number) =>
    (permits = cost) =>
      permitRequest ? permitRequest(permits) : { permits };
  const library = libraryEntries({ name: definition.name, acquire: algorithm, ops });
  const kind: LimitKind<O, L> = {
    library,
    ...commonKindParts(definition),
    optionNames: definition.options,
    algorithm,
    ops,
    compile(options, where): CompiledAlgorithm {
      const params = definition.params(options as O, where);
      const { retryAfterMs } = slots;
      return {
        algorithm: anyAlgorithm(algorithm),
        params,
        newRequest: newRequest(staticPermits(options.permits, algorithm.limit(params), where)),
        holdsSlot: true,
        ...(retryAfterMs && { retryAfterMs: (decision) => retryAfterMs(decision, params) }),
        releaseRequest: (acquire) => slots.release(acquire as R),
        slotLeaseMs: slots.leaseMs(params),
      };
    },
  };
  return { definition, algorithm, ops, kind };
}

/**
 * What every kind takes from its definition alike: its names, its factory method's options
 * (the key options, then its own but those set per request), and its factory limiter.
 */
export function commonKindParts<O, P, R, L>(
  definition: SlotsDefinition<O, P, R, L>,
): Pick<
  LimitKind<O, L>,
  | 'name'
  | 'decorator'
  | 'defaultPrefix'
  | 'factoryOptionNames'
  | 'durationOptions'
  | 'limiterParams'
  | 'createLimiter'
> {
  const { options, requestOptions } = definition;
  return {
    name: definition.name,
    decorator: definition.decorator,
    defaultPrefix: definition.prefix,
    durationOptions: definition.durations ?? [],
    factoryOptionNames: [
      ...FACTORY_KEY_OPTIONS,
      ...options.filter((option) => !requestOptions.includes(option)),
    ],
    limiterParams: (limiterOptions, where) =>
      definition.params(limiterOptions, where) as unknown as object,
    createLimiter: (source, key, params) => definition.limiter(source, key, params as P),
  };
}
