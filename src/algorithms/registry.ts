import { approximateSlidingWindowLimitKind } from './approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { concurrencyLimitKind } from './concurrency-limit/concurrency-limit.definition';
import { countLimitKind } from './count-limit/count-limit.definition';
import { leakyBucketLimitKind } from './leaky-bucket-limit/leaky-bucket-limit.definition';
import { LimitKind } from './limit-kind';

export { factoryMethodOf } from './limit-kind';
import { STATE_OPTION_NAMES, TUNABLE_STATE_OPTIONS } from './state-ops/state-options';
import { slidingWindowLimitKind } from './sliding-window-limit/sliding-window-limit.definition';
import { rateLimitKind } from './rate-limit/rate-limit.definition';
import { quotaLimitKind } from './quota-limit/quota-limit.definition';

/** Every algorithm: a new one is a folder of its own and one line here. */
export const LIMIT_KINDS: readonly LimitKind[] = [
  rateLimitKind,
  countLimitKind,
  slidingWindowLimitKind,
  concurrencyLimitKind,
  leakyBucketLimitKind,
  approximateSlidingWindowLimitKind,
  quotaLimitKind,
];

const byName = new Map(LIMIT_KINDS.map((kind) => [kind.name, kind]));

/**
 * The kind a decorator or factory method names, or the variant of it that its options
 * select (`approximate: true`); undefined for a name no kind has.
 */
export function limitKindFor(
  name: string,
  options: Readonly<Record<string, unknown>>,
): LimitKind | undefined {
  for (const kind of LIMIT_KINDS) {
    if (kind.variant?.of === name && options[kind.variant.when]) return kind;
  }
  return byName.get(name);
}

/**
 * The kind named `name`, then its variants, as a decorator records them (`kinds`): for a
 * module default, which names its algorithm. Empty for a name no kind has.
 */
export function kindsNamed(name: string): LimitKind[] {
  const kind = byName.get(name);
  return kind ? [kind, ...LIMIT_KINDS.filter((variant) => variant.variant?.of === name)] : [];
}

/** The options that select a variant of the kind `name` (`approximate`): valid on its decorator. */
export function variantSwitches(name: string): string[] {
  return LIMIT_KINDS.filter((kind) => kind.variant?.of === name).map((kind) => kind.variant!.when);
}

/**
 * The algorithm names a module default takes: the kinds' own, each its decorator's name in
 * camel case (`@CountLimit` is `'countLimit'`). Variants are chosen by their switch
 * (`approximate: true`), as on the decorator.
 */
export const ALGORITHM_NAMES: readonly string[] = LIMIT_KINDS.filter((kind) => !kind.variant).map(
  (kind) => kind.name,
);

/**
 * The options of `kinds` an override may change (the admin module's live overrides): the
 * numbers each definition declares, in order, then the tunable state options (`block`).
 * Never the key, a variant's switch or `count`: they change what a limit is, not its size.
 */
export function overridableOptions(kinds: readonly LimitKind[]): string[] {
  const state: readonly string[] = STATE_OPTION_NAMES;
  const declared = kinds.flatMap((kind) =>
    kind.optionNames.filter(
      (name) =>
        name !== kind.variant?.when && !state.includes(name) && !kind.fixedOptions?.includes(name),
    ),
  );
  return [...new Set([...declared, ...TUNABLE_STATE_OPTIONS])];
}
