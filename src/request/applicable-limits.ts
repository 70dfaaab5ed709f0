import { CompiledLimit, PlannedLimit } from '../compile/compiled-limit';
import { LimitContext, SkipPredicate } from '../contracts/limit-context';

/**
 * The limits of a dynamic plan that apply to one request, compiled for it: none when the
 * module's `skip` says so, else those whose own `skip` does not, with the options that are
 * functions resolved. A skipped limit reads no key and costs no store call; `onSkipped`
 * hears of each. Rejects with `InvalidResolvedOptionError` for a value the algorithm refuses.
 */
export async function applicableLimits(
  plan: readonly PlannedLimit[],
  ctx: LimitContext,
  moduleSkip: SkipPredicate | undefined,
  onSkipped: (limit: PlannedLimit) => void,
): Promise<readonly CompiledLimit[]> {
  if (moduleSkip && (await moduleSkip(ctx))) {
    for (const limit of plan) onSkipped(limit);
    return [];
  }
  const applicable: CompiledLimit[] = [];
  for (const limit of plan) {
    if (limit.skip && (await limit.skip(ctx))) onSkipped(limit);
    else applicable.push(limit.resolve ? await limit.resolve(ctx) : limit);
  }
  return applicable;
}
