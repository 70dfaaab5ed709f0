import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';
import { coalescedAcquire } from '../../algorithms/state-ops/coalesced';
import { FixedArguments } from './redis-decision';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

/**
 * A limit's parameters never change: they are formatted for the engine once per params
 * object. A params object used by one algorithm (the usual case) keeps its arguments
 * directly, one lookup per decision; one used by several (an acquire and its operations)
 * keeps a map of them. Params made for one request (a decision with a `partition`) are
 * formatted each time and kept by nobody: a cache of them would hold a value per tenant.
 */
export class FixedArgumentsCache {
  private readonly byParams = new WeakMap<object, FixedArguments | Map<object, FixedArguments>>();
  /**
   * The arguments found last: decisions in a row are mostly of one limit (the factory's
   * limiters of one configuration share their params object), and a comparison costs less
   * than a WeakMap lookup. Held strongly: one limit's params, whatever happens to them.
   */
  private lastParams?: object;
  private lastFixed?: FixedArguments;

  /** `indexOf`: the engine's index of an algorithm (engine/script.ts). */
  constructor(private readonly indexOf: (algorithm: AnyAlgorithm) => string) {}

  of<P>(
    algorithm: LimiterAlgorithm<P, unknown, unknown>,
    params: P,
    perRequest = false,
  ): FixedArguments {
    const cacheable = !perRequest && typeof params === 'object' && params !== null;
    if (!cacheable) return this.format(algorithm, params);
    const last = this.lastFixed;
    if (this.lastParams === params && last!.algorithm === algorithm) return last!;
    const fixed = this.cached(algorithm, params);
    this.lastParams = params;
    this.lastFixed = fixed;
    return fixed;
  }

  private cached<P>(
    algorithm: LimiterAlgorithm<P, unknown, unknown>,
    params: P & object,
  ): FixedArguments {
    const cached = this.byParams.get(params);
    if (cached !== undefined) {
      if (!(cached instanceof Map)) {
        if (cached.algorithm === algorithm) return cached;
      } else {
        const found = cached.get(algorithm);
        if (found) return found;
      }
    }
    const fixed = this.format(algorithm, params);
    if (cached === undefined) this.byParams.set(params, fixed);
    else if (cached instanceof Map) cached.set(algorithm, fixed);
    else
      this.byParams.set(
        params,
        new Map([
          [cached.algorithm, cached],
          [algorithm, fixed],
        ]),
      );
    return fixed;
  }

  private format<P>(algorithm: LimiterAlgorithm<P, unknown, unknown>, params: P): FixedArguments {
    const argv = algorithm.paramsArgv(params);
    const coalesced = coalescedAcquire(algorithm);
    return {
      algorithm,
      argv,
      limitId: `${algorithm.commandName} ${argv.join(' ')}`,
      algorithmIndex: this.indexOf(algorithm),
      coalescedIndex: coalesced && this.indexOf(coalesced),
      // Packed on first use (engine/packing.ts); present from the start, one shape for all.
      packedFields: undefined,
      packedAlone: undefined,
    };
  }
}
