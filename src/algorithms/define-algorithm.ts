import { CompiledAlgorithm, anyAlgorithm, DecisionSource, LimitKind } from './limit-kind';
import { LimiterAlgorithm } from './limiter-algorithm';
import { blockable } from './state-ops/blockable';
import { StateOps, stateOps } from './state-ops/state-ops';
import { BlockParams, Blockable, RefundRequest, StateType } from './state-ops/state-ops.model';
import { blockParams, countOption, STATE_OPTION_NAMES } from './state-ops/state-options';

/**
 * One algorithm, declared once in its folder (`<name>.definition.ts`): its names, its
 * options, its Lua and twin (the core), and how a decorator's options become a request.
 * `O` its options, `P` its parameters, `R` a request, `S` the twin's state, `L` its limiter.
 */
export interface AlgorithmDefinition<O, P, R, S, L> {
  /** The kind a decorator records (`LimitDefinition.kind`); it is part of derived keys. */
  name: string;
  /** The decorator's name, for messages. */
  decorator: string;
  /** The key prefix of the decorator and of the factory method. */
  prefix: string;
  /** Its options besides the key options, `block` and `count`, in the order messages list them. */
  options: readonly string[];
  /** Set when another kind's decorator selects this one by a truthy option. */
  variant?: { of: string; when: string };
  /** Where a block is kept in its key. */
  stateType: StateType;
  /** The acquire: Lua and memory twin. */
  core: LimiterAlgorithm<P, R, S>;
  /** Gives permits back (refund, `count`, `settle`). */
  refund?: LimiterAlgorithm<P, RefundRequest, S>;
  /** Takes permits into debt (`settle`). */
  charge?: LimiterAlgorithm<P, RefundRequest, S>;
  /** Validates the options, naming `where` in errors. */
  params(options: O, where: string): P;
  /** A guarded limit's requests and policy window, from the decorator's options. */
  requests(
    options: Record<string, unknown>,
    params: P,
    where: string,
  ): Pick<CompiledAlgorithm, 'newRequest' | 'windowSeconds'>;
  /** The factory's limiter on one key. */
  limiter(source: DecisionSource, key: string, params: P): L;
}

/** What a definition derives: the acquire with blocks, its operations, its kind. */
export interface DefinedAlgorithm<O, P, R, S, L> extends AlgorithmDefinition<O, P, R, S, L> {
  algorithm: LimiterAlgorithm<P & BlockParams, R, Blockable<S>>;
  ops: StateOps<P & BlockParams, R, S>;
  kind: LimitKind<O, L>;
}

/**
 * Derives from one definition what the engine, the guard and the factory use: the acquire
 * with blocks (blockable.ts), peek / reset / block / refund / charge (state-ops.ts), and the
 * kind that compiles a decorator's options and creates the factory's limiter. The registry
 * lists the kind; the engine script is built from the acquire and its operations.
 */
export function defineAlgorithm<O, P, R, S, L>(
  definition: AlgorithmDefinition<O, P, R, S, L>,
): DefinedAlgorithm<O, P, R, S, L> {
  const { core, stateType } = definition;
  const algorithm = blockable(core, stateType);
  const ops = stateOps(algorithm, stateType, definition.refund, definition.charge);
  const kind: LimitKind<O, L> = {
    name: definition.name,
    decorator: definition.decorator,
    defaultPrefix: definition.prefix,
    optionNames: [...definition.options, ...STATE_OPTION_NAMES],
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
        ...definition.requests(options, params, where),
      };
    },
    createLimiter: (source, key, options, where) =>
      definition.limiter(source, key, definition.params(options, where)),
  };
  return { ...definition, algorithm, ops, kind };
}
