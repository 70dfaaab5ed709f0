import { anyAlgorithm, CompiledAlgorithm, factoryMethodOf, LimitKind } from './limit-kind';
import { DecisionSource } from './decision-source';
import {
  checkPermits,
  PEEK_PERMITS,
  permitsRequest,
  permitsRequests as costOf,
  staticPermits,
} from './permits';
import { PermitsAccess } from './state-ops/key-state-limiter';
import { EngineAlgorithm } from './engine-algorithm';
import { blockable } from './state-ops/blockable';
import { coalesce, coalescedAcquire } from './state-ops/coalesced';
import { libraryEntries } from './library-entries';
import { leaseParams, markLeasable } from './state-ops/lease-option';
import { StateOps, stateOps } from './state-ops/state-ops';
import { BlockParams, Blockable, RefundRequest, StateType } from './state-ops/state-ops.model';
import { blockArgv, blockParams } from './option-rules';
import { countOption, STATE_OPTION_NAMES } from './state-ops/state-options';
import { DefinedSlots, defineSlots, commonKindParts, SlotHooks } from './define-slots';

/**
 * One algorithm, declared once in its folder (`<name>.definition.ts`): its names, its
 * options, its Lua and twin (the core), and how a decorator's options become a request.
 * `O` its options, `P` its parameters, `R` a request, `S` the twin's state, `L` its limiter.
 */
interface AlgorithmDefinition<O, P, R, S, L> {
  /**
   * The one name of the algorithm: its decorator's in camel case (`countLimit`), the kind a
   * decorator records and a module default names, its folder (in kebab case), whose Lua files
   * (`<name>.lua`, `.refund.lua`, `.charge.lua`) the engine library's composer reads; its
   * class and factory method add `er`.
   */
  name: string;
  /** The decorator's name, for messages. */
  decorator: string;
  /** The key prefix of the decorator and of the factory method. */
  prefix: string;
  /** Its options besides the key options, `block` and `count`, in the order messages list them. */
  options: readonly string[];
  /**
   * Those of {@link options} that set each request (its cost, its wait), not the limit: the
   * decorator's only, as a programmatic limiter takes them per call.
   */
  requestOptions: readonly string[];
  /** Those of {@link options} that are times in seconds (or duration strings); `block` is one too. */
  durations?: readonly string[];
  /**
   * Those of {@link options} that say what the limit is rather than how big (a quota's cycle
   * and time zone): an admin override may not change them.
   */
  fixedOptions?: readonly string[];
  /** Set when another kind's decorator selects this one by a truthy option. */
  variant?: { of: string; when: string };
  /** Where a block is kept in its key. */
  stateType: StateType;
  /**
   * True when its coalesced form decides n requests on one key at once, exactly as n in a row
   * (state-ops/coalesced.ts, coalesced.lua): the engine then sends a hot key's requests of one
   * call as one entry.
   */
  coalesces?: boolean;
  /**
   * Set when a server may lease the limit's permits (`lease: n`, stores/redis/lease; `lease` is then
   * in {@link options}: a kind without it refuses the option as unknown, and the concurrency
   * limit's own `lease` is its slots' lifetime). `endsWithWindow`: its permits come back at
   * the end of a window (`resetMs`), which a lease never outlives.
   */
  leases?: { endsWithWindow: boolean };
  /** The acquire but its command (`limiter<Name>`) and Lua (`<name>.lua`): twin, arguments. */
  core: Omit<EngineAlgorithm<P, R, S>, 'commandName' | 'lua'>;
  /** Gives permits back (refund, `count`, `settle`): the twin of `<name>.refund.lua`. */
  refund?: { step: Adjustment<P, S>['step'] };
  /**
   * Takes permits into debt (`settle`): the twin of `<name>.charge.lua`, or an algorithm of
   * its own made from the acquire (the token bucket's is its acquire without a timeout, the
   * counter's and the approximate window's their acquire without the limit).
   */
  charge?:
    | { step: Adjustment<P, S>['step'] }
    | { of: (core: EngineAlgorithm<P, R, S>) => Adjustment<P, S> };
  /** Validates the options, naming `where` in errors. */
  params(options: O, where: string): P;
  /**
   * A guarded limit's requests and policy window, from the decorator's options. Default:
   * requests of the decorator's `permits` ({@link permitRequest}), over {@link windowSeconds}.
   */
  requests?(
    options: Record<string, unknown>,
    params: P,
    where: string,
  ): Pick<CompiledAlgorithm, 'newRequest' | 'windowSeconds'>;
  /** The policy window in seconds, for the IETF `RateLimit-Policy` header. */
  windowSeconds?(params: P): number;
  /** The request of `permits` (checked already) where it is more than `{ permits }`. */
  permitRequest?(permits: number): R;
  /** The request a peek makes (0 permits; the state is restored after it), where it is more than `{ permits: 0 }`. */
  peekRequest?: R;
  /** The factory's limiter on one key. */
  limiter(source: DecisionSource, key: string, params: P): L;
  /** Set where a request holds slots until its work ends (concurrency): define-slots.ts. */
  slots?: SlotHooks<P, R, S>;
}

type Adjustment<P, S> = EngineAlgorithm<P, RefundRequest, S>;

/** What a definition derives: the acquire with blocks, its operations, its kind. */
export interface DefinedAlgorithm<O, P, R, S, L> {
  definition: AlgorithmDefinition<O, P, R, S, L>;
  /** The acquire as its Lua and twin are written, without blocks. */
  core: EngineAlgorithm<P, R, S>;
  refund?: Adjustment<P, S>;
  charge?: Adjustment<P, S>;
  algorithm: EngineAlgorithm<P & BlockParams, R, Blockable<S>>;
  ops: StateOps<P & BlockParams, R, S>;
  kind: LimitKind<O, L>;
  /** What its factory limiter runs, when a request is a number of permits. */
  access: PermitsAccess<P & BlockParams>;
}

/**
 * Derives from one definition what the engine, the guard and the factory use: the acquire
 * with blocks (blockable.ts), peek / reset / block / refund / charge (state-ops.ts), and the
 * kind that compiles a decorator's options and creates the factory's limiter. The registry
 * lists the kind; the engine library holds the Lua of the acquire and its operations.
 */
export function defineAlgorithm<O, P, R, S, L>(
  definition: AlgorithmDefinition<O, P, R, S, L> & { slots: SlotHooks<P, R, S> },
): DefinedSlots<O, P, R, S, L>;
export function defineAlgorithm<O, P, R, S, L>(
  definition: AlgorithmDefinition<O, P, R, S, L>,
): DefinedAlgorithm<O, P, R, S, L>;
export function defineAlgorithm<O, P, R, S, L>(
  definition: AlgorithmDefinition<O, P, R, S, L>,
): DefinedAlgorithm<O, P, R, S, L> | DefinedSlots<O, P, R, S, L> {
  const { stateType, name } = definition;
  const commandName = `limiter${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  const core = {
    ...definition.core,
    commandName,
  };
  if (definition.slots) return defineSlots(definition, core, definition.slots);
  const adjustment = (op: 'refund' | 'charge', step: Adjustment<P, S>['step']) =>
    adjustmentOf(core, `${commandName}${op === 'refund' ? 'Refund' : 'Charge'}`, step);
  const refund = definition.refund && adjustment('refund', definition.refund.step);
  const given = definition.charge;
  const charge = given && ('of' in given ? given.of(core) : adjustment('charge', given.step));
  const algorithm: EngineAlgorithm<P & BlockParams, R, Blockable<S>> = {
    ...blockable(core, stateType),
    // Made here, where `compile` builds the parameters: the block first (blockable.lua reads
    // it), then the algorithm's own.
    paramsArgv: (params) => [blockArgv(params), ...core.paramsArgv(params)],
  };
  if (definition.coalesces) coalesce(algorithm);
  const ops = stateOps(algorithm, stateType, refund, charge);
  const library = libraryEntries({
    name,
    acquire: algorithm,
    ops,
    coalesced: coalescedAcquire(algorithm),
  });
  const kind: LimitKind<O, L> = {
    library,
    ...commonKindParts(definition),
    optionNames: [...definition.options, ...STATE_OPTION_NAMES],
    durationOptions: [...(definition.durations ?? []), 'block'],
    ops,
    algorithm,
    variant: definition.variant,
    fixedOptions: definition.fixedOptions,
    // Runs per request for options that are functions of it: Object.assign and named fields,
    // as V8 builds an object spread from several others slowly.
    compile(options, where) {
      const params: P & BlockParams = Object.assign(
        {},
        definition.params(options as O, where),
        blockParams(options.block, where),
        leaseOf(options, where),
      );
      const { newRequest, windowSeconds } = (definition.requests ?? permitsRequests)(
        options,
        params,
        where,
      );
      return {
        algorithm: anyAlgorithm(algorithm),
        params,
        ops,
        count: countOption(options.count, where),
        newRequest,
        windowSeconds,
      };
    },
    // A factory limiter leases too (lease: n); the slots' kinds have no such option.
    limiterParams: (options, where) => ({
      ...definition.params(options, where),
      ...leaseOf(options as Record<string, unknown>, where),
    }),
  };
  if (definition.leases && ops.refund) {
    markLeasable(algorithm, { refund: ops.refund, ...definition.leases });
  }
  const method = factoryMethodOf(definition);
  const access: PermitsAccess<P & BlockParams> = {
    acquire: algorithm,
    ops,
    // A peek takes 0 permits: the state as it stands, nothing written.
    peekRequest: definition.peekRequest ?? PEEK_PERMITS,
    request: (permits) =>
      definition.permitRequest
        ? definition.permitRequest(checkPermits(permits, method))
        : permitsRequest(permits, method),
  };
  return { definition, core, refund, charge, algorithm, ops, kind, access };

  /** The lease's parameters, where the kind leases its permits. */
  function leaseOf(options: Readonly<Record<string, unknown>>, where: string) {
    return definition.leases ? leaseParams(options.lease, where) : {};
  }

  /** The default `requests`: each takes the decorator's `permits` (a static one checked now). */
  function permitsRequests(
    options: Record<string, unknown>,
    params: P,
    where: string,
  ): Pick<CompiledAlgorithm, 'newRequest' | 'windowSeconds'> {
    const cost = staticPermits(options.permits, core.limit(params), where);
    const { permitRequest, windowSeconds } = definition;
    return {
      newRequest: permitRequest ? (permits = cost) => permitRequest(permits) : costOf(cost),
      windowSeconds: windowSeconds?.(params),
    };
  }
}

/**
 * A refund or a charge of `core`: its own Lua (`<name>.refund.lua`, `.charge.lua`, in the
 * engine library) and twin, on the acquire's parameters; the definition wraps it so that it
 * keeps the key's block.
 */
function adjustmentOf<P, S>(
  core: EngineAlgorithm<P, any, S>,
  commandName: string,
  step: EngineAlgorithm<P, RefundRequest, S>['step'],
): EngineAlgorithm<P, RefundRequest, S> {
  const { paramsArgv, limit } = core;
  return { commandName, paramsArgv, step, limit };
}
