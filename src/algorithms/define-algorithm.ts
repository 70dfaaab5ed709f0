import {
  anyAlgorithm,
  CompiledAlgorithm,
  DecisionSource,
  factoryMethodOf,
  LimitKind,
} from './limit-kind';
import {
  checkPermits,
  PEEK_PERMITS,
  permitsRequest,
  permitsRequests as costOf,
  staticPermits,
} from './permits';
import { PermitsAccess } from './state-ops/key-state-limiter';
import { LimiterAlgorithm } from './limiter-algorithm';
import { blockable } from './state-ops/blockable';
import { StateOps, stateOps } from './state-ops/state-ops';
import { BlockParams, Blockable, RefundRequest, StateType } from './state-ops/state-ops.model';
import { blockArgv, blockParams } from './option-rules';
import { countOption, FACTORY_KEY_OPTIONS, STATE_OPTION_NAMES } from './state-ops/state-options';

/**
 * One algorithm, declared once in its folder (`<name>.definition.ts`): its names, its
 * options, its Lua and twin (the core), and how a decorator's options become a request.
 * `O` its options, `P` its parameters, `R` a request, `S` the twin's state, `L` its limiter.
 */
export interface AlgorithmDefinition<O, P, R, S, L> {
  /**
   * The one name of the algorithm: its decorator's in camel case (`countLimit`), the kind a
   * decorator records and a module default names, its folder, its Lua functions; its class
   * and factory method add `er`.
   */
  name: string;
  /** Written into keys and events, so never renamed: {@link LimiterAlgorithm.stableName}. */
  stableName: string;
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
  /** Set when another kind's decorator selects this one by a truthy option. */
  variant?: { of: string; when: string };
  /** Where a block is kept in its key. */
  stateType: StateType;
  /**
   * Its folder, `__dirname`: its Lua is `<folder>.lua`, `.refund.lua` and `.charge.lua` there,
   * composed into the engine library by stores/engine/engine-library.lua.
   */
  folder: string;
  /** The acquire but its command (`limiter<Name>`) and Lua (`<folder>.lua`): twin, arguments. */
  core: Omit<LimiterAlgorithm<P, R, S>, 'commandName' | 'lua'>;
  /** Gives permits back (refund, `count`, `settle`): the twin of `<folder>.refund.lua`. */
  refund?: { step: Adjustment<P, S>['step'] };
  /**
   * Takes permits into debt (`settle`): the twin of `<folder>.charge.lua`, or an algorithm of
   * its own made from the acquire (the token bucket's is its acquire without a timeout).
   */
  charge?:
    | { step: Adjustment<P, S>['step'] }
    | { of: (core: LimiterAlgorithm<P, R, S>) => Adjustment<P, S> };
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
}

type Adjustment<P, S> = LimiterAlgorithm<P, RefundRequest, S>;

/** What a definition derives: the acquire with blocks, its operations, its kind. */
export interface DefinedAlgorithm<O, P, R, S, L> {
  definition: AlgorithmDefinition<O, P, R, S, L>;
  /** The acquire as its Lua and twin are written, without blocks. */
  core: LimiterAlgorithm<P, R, S>;
  refund?: Adjustment<P, S>;
  charge?: Adjustment<P, S>;
  algorithm: LimiterAlgorithm<P & BlockParams, R, Blockable<S>>;
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
  definition: AlgorithmDefinition<O, P, R, S, L>,
): DefinedAlgorithm<O, P, R, S, L> {
  const { stateType, name } = definition;
  const commandName = `limiter${name.charAt(0).toUpperCase()}${name.slice(1)}`;
  const core = {
    ...definition.core,
    commandName,
    stableName: definition.stableName,
  };
  const adjustment = (op: 'refund' | 'charge', step: Adjustment<P, S>['step']) =>
    adjustmentOf(core, `${commandName}${op === 'refund' ? 'Refund' : 'Charge'}`, step);
  const refund = definition.refund && adjustment('refund', definition.refund.step);
  const given = definition.charge;
  const charge = given && ('of' in given ? given.of(core) : adjustment('charge', given.step));
  const algorithm: LimiterAlgorithm<P & BlockParams, R, Blockable<S>> = {
    ...blockable(core, stateType),
    // Made here, where `compile` builds the parameters: the block first (blockable.lua reads
    // it), then the algorithm's own.
    paramsArgv: (params) => [blockArgv(params), ...core.paramsArgv(params)],
  };
  const ops = stateOps(algorithm, stateType, refund, charge);
  const kind: LimitKind<O, L> = {
    name: definition.name,
    stableName: definition.stableName,
    decorator: definition.decorator,
    defaultPrefix: definition.prefix,
    optionNames: [...definition.options, ...STATE_OPTION_NAMES],
    factoryOptionNames: [
      ...FACTORY_KEY_OPTIONS,
      ...definition.options.filter((option) => !definition.requestOptions.includes(option)),
    ],
    ops,
    algorithm,
    variant: definition.variant,
    compile(options, where) {
      const params = {
        ...definition.params(options as O, where),
        ...blockParams(options.block, where),
      };
      return {
        algorithm: anyAlgorithm(algorithm),
        params,
        ops,
        count: countOption(options.count, where),
        ...(definition.requests ?? permitsRequests)(options, params, where),
      };
    },
    createLimiter: (source, key, options, where) =>
      definition.limiter(source, key, definition.params(options, where)),
  };
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
 * A refund or a charge of `core`: its own Lua (`<folder>.refund.lua`, `.charge.lua`, in the
 * engine library) and twin, on the acquire's parameters; the definition wraps it so that it
 * keeps the key's block.
 */
function adjustmentOf<P, S>(
  core: LimiterAlgorithm<P, any, S>,
  commandName: string,
  step: LimiterAlgorithm<P, RefundRequest, S>['step'],
): LimiterAlgorithm<P, RefundRequest, S> {
  const { paramsArgv, limit } = core;
  return { commandName, paramsArgv, step, limit };
}
