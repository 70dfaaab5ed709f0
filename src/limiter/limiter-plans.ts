/** Configurations of one kind remembered; past this many, the oldest is validated again. */
const MAX_PLANS = 32;

interface Plan {
  values: readonly unknown[];
  params: object;
}

/**
 * A kind's limiter parameters by the raw values of its options: validated and normalised
 * once per configuration rather than once per limiter, and one object shared by every
 * limiter of that configuration, whatever its key, so the store formats its script
 * arguments once. Found by `Object.is` on each value, the last plan found first: an app
 * asks for one configuration over many keys in a row.
 */
export class LimiterPlans {
  private readonly plans: Plan[] = [];

  constructor(private readonly optionNames: readonly string[]) {}

  /** The parameters for these option values, made by `make` (which may throw) on a miss. */
  paramsFor(options: Readonly<Record<string, unknown>>, make: () => object): object {
    const { plans, optionNames } = this;
    for (let i = plans.length - 1; i >= 0; i--) {
      if (!sameValues(plans[i].values, options, optionNames)) continue;
      const plan = plans[i];
      if (i !== plans.length - 1) {
        plans.splice(i, 1);
        plans.push(plan);
      }
      return plan.params;
    }
    // Frozen: limiters of one configuration share it, and none may change the others'.
    const params = Object.freeze(make());
    if (plans.length >= MAX_PLANS) plans.shift();
    plans.push({ values: optionNames.map((name) => options[name]), params });
    return params;
  }
}

/** Whether `options` holds, under each of `optionNames`, the same value as `values`. */
export function sameValues(
  values: readonly unknown[],
  options: Readonly<Record<string, unknown>>,
  optionNames: readonly string[],
): boolean {
  for (let i = 0; i < optionNames.length; i++) {
    if (!Object.is(values[i], options[optionNames[i]])) return false;
  }
  return true;
}
