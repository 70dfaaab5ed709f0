import { CompiledAlgorithm, LimitKind } from '../algorithms/limit-kind';
import { checkPermits } from '../algorithms/permits';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { LimitContext } from '../contracts/limit-context';

/** Builds a limit for one request, from options that depend on it. */
export type Resolver<T> = (ctx: LimitContext) => Promise<T>;

/** A value a function returned that the algorithm refuses; the guard answers 500. */
export class InvalidResolvedOptionError extends Error {
  override readonly name = 'InvalidResolvedOptionError';
}

/**
 * Stands in for every function-valued option when static values are checked at start-up:
 * valid for every numeric option of every algorithm, and large, so a static value is only
 * refused for itself (permits against rate * burst passes whatever the rate will be).
 */
const PROBE = 1_000_000;

/**
 * A limit whose options include functions of the request (a limit of values only is
 * compiled once, by compiled-limit.ts): the statics are checked now, and each request's
 * values become its params through the same `kind.compile` (the algorithm's own
 * validation). The values travel as arguments: nothing is kept per value, so a limit from
 * each customer's plan costs the same with 10,000 plans as with 10, and the runs of every
 * such limit of the algorithm share a `partition` the stores know them by. A `permits` function is the
 * request's cost, not a parameter of the limit: resolved on every request and checked
 * alone (an integer >= 0), it changes only the request the run makes.
 */
export function resolverOf<T>(
  kind: LimitKind,
  options: Record<string, unknown>,
  where: string,
  /** Turns a run into what the caller keeps: the limit for the request. */
  finish: (run: CompiledAlgorithm) => T,
): { resolve: Resolver<T>; probe?: CompiledAlgorithm } {
  const cost =
    typeof options.permits === 'function'
      ? (options.permits as (ctx: LimitContext) => unknown)
      : undefined;
  const dynamic = kind.optionNames.filter(
    (name) => name !== 'permits' && typeof options[name] === 'function',
  );
  let runFor: Resolver<CompiledAlgorithm>;
  // What every run shares whatever the request's values (it holds a slot, it counts some
  // outcomes): a run of the statics, or undefined when the probe values were refused.
  let probe: CompiledAlgorithm | undefined;
  if (dynamic.length === 0) {
    const fixed = (probe = kind.compile(options, where));
    runFor = () => Promise.resolve(fixed);
  } else {
    probe = checkStatics(kind, options, where, dynamic);
    runFor = resolvingRun(kind, options, where, dynamic);
  }
  if (!cost) return { resolve: async (ctx) => finish(await runFor(ctx)), probe };
  return {
    probe,
    resolve: async (ctx) => {
      const [run, permits] = await Promise.all([runFor(ctx), resolvedPermits(cost, ctx, where)]);
      return finish({ ...run, newRequest: (p) => run.newRequest(p ?? permits) });
    },
  };
}

/** A `permits` function's value for this request: an integer >= 0, else the guard's 500. */
async function resolvedPermits(
  cost: (ctx: LimitContext) => unknown,
  ctx: LimitContext,
  where: string,
): Promise<number> {
  const returned = cost(ctx);
  const value = isThenable(returned) ? await returned : returned;
  try {
    return checkPermits(value, where);
  } catch (error) {
    if (!(error instanceof LimiterConfigError)) throw error;
    throw new InvalidResolvedOptionError(
      `${error.message} (resolved for this request: permits = ${show(value)})`,
    );
  }
}

/** The run for the values the functions return for a request: its params, made for it. */
function resolvingRun(
  kind: LimitKind,
  options: Record<string, unknown>,
  where: string,
  dynamic: readonly string[],
): Resolver<CompiledAlgorithm> {
  const partition = partitionOf(kind);
  return async (ctx) => {
    const returned = dynamic.map((name) => (options[name] as (ctx: LimitContext) => unknown)(ctx));
    // Await only what is a promise: a sync function costs no extra turn per value.
    const values = returned.some(isThenable) ? await Promise.all(returned) : returned;
    const resolved = { ...options };
    dynamic.forEach((name, i) => (resolved[name] = values[i]));
    let run: CompiledAlgorithm;
    try {
      run = kind.compile(resolved, where);
    } catch (error) {
      if (!(error instanceof LimiterConfigError)) throw error;
      const shown = dynamic.map((name, i) => `${name} = ${show(values[i])}`);
      throw new InvalidResolvedOptionError(
        `${error.message} (resolved for this request: ${shown.join(', ')})`,
      );
    }
    run.partition = partition;
    return run;
  };
}

/**
 * One per algorithm, for every limit of it whose params are made per request: it must not
 * change when the plan is compiled again (a live override recompiles every handler) nor
 * differ between two handlers whose limits build the same key, as a partition per limit
 * did; a key is one key in Redis, whatever its plan or handler.
 */
const partitions = new Map<LimitKind, object>();
function partitionOf(kind: LimitKind): object {
  let partition = partitions.get(kind);
  if (!partition) partitions.set(kind, (partition = Object.freeze({ kind: kind.name })));
  return partition;
}

const isThenable = (value: unknown) => typeof (value as Promise<unknown>)?.then === 'function';

const show = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(show).join(',')}]`
    : typeof value === 'string'
      ? `'${value}'`
      : String(value);

function checkStatics(
  kind: LimitKind,
  options: Record<string, unknown>,
  where: string,
  dynamic: readonly string[],
): CompiledAlgorithm | undefined {
  const probed = { ...options };
  for (const name of dynamic) probed[name] = PROBE;
  try {
    return kind.compile(probed, where);
  } catch (error) {
    // An error about a function's own option depends on the request: checked per request.
    const message = (error as Error)?.message ?? '';
    if (!dynamic.some((name) => message.includes(`option '${name}'`))) throw error;
    return undefined;
  }
}
