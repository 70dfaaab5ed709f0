import type { LimitKind } from '../algorithms/limit-kind';
import { factoryMethodOf, variantSwitches } from '../algorithms/registry';
import type { LimiterCacheOptions } from '../rate-limiter.options';
import { LimiterCache } from './limiter-cache';
import { LimiterPlans } from './limiter-plans';

/** What the factory keeps for one kind of limiter. */
export interface KindLimiters {
  kind: LimitKind;
  cache: LimiterCache;
  /** What identifies a limiter of the kind besides its key: its options and `prefix`. */
  optionNames: string[];
  /** The options its factory method takes. */
  known: ReadonlySet<string>;
  /** Its limiters' parameters, by configuration. */
  plans: LimiterPlans;
  /** Its factory method's name, for messages. */
  method: string;
}

/** What the factory keeps for `kind`, a kind of `named`'s method, from its first limiter on. */
export function kindLimiters(
  kind: LimitKind,
  named: LimitKind,
  cacheOptions: LimiterCacheOptions | undefined,
): KindLimiters {
  // Only the options its method takes: any other is refused, so always absent. A limiter is
  // found by them; its validated params by them less the prefix, which only names its keys.
  const optionNames = kind.factoryOptionNames.filter((name) => name !== 'key');
  return {
    kind,
    cache: new LimiterCache(cacheOptions),
    optionNames,
    known: new Set([...kind.factoryOptionNames, ...variantSwitches(named.name)]),
    plans: new LimiterPlans(optionNames.filter((name) => name !== 'prefix')),
    method: factoryMethodOf(named),
  };
}
