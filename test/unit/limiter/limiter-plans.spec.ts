import { LimiterPlans } from '../../../src/limiter/limiter-plans';

describe('LimiterPlans', () => {
  const made = () => {
    let count = 0;
    return {
      make: (limit: unknown) => () => ({ limit, made: ++count }),
      count: () => count,
    };
  };

  it('makes the parameters once per configuration, whatever the options object', () => {
    const plans = new LimiterPlans(['limit', 'period']);
    const { make, count } = made();
    const first = plans.paramsFor({ key: 'a', limit: 5, period: 60 }, make(5));
    expect(plans.paramsFor({ key: 'b', limit: 5, period: 60 }, make(5))).toBe(first);
    expect(first).toEqual({ limit: 5, made: 1 });
    expect(count()).toBe(1);
  });

  it('never serves a configuration the parameters of another', () => {
    const plans = new LimiterPlans(['limit', 'period']);
    const { make } = made();
    const options: Record<string, unknown> = { limit: 5, period: 60 };
    const five = plans.paramsFor(options, make(5));
    // The same object, changed: its values say which plan it is, not its identity.
    options.limit = 6;
    expect(plans.paramsFor(options, make(6))).toEqual({ limit: 6, made: 2 });
    options.period = '1m';
    expect(plans.paramsFor(options, make(6))).toEqual({ limit: 6, made: 3 });
    // An option left out is not the same as one given.
    expect(plans.paramsFor({ limit: 5 }, make(5))).toEqual({ limit: 5, made: 4 });
    expect(plans.paramsFor({ limit: 5, period: 60 }, make(5))).toBe(five);
  });

  it('tells -0 from 0 and NaN as itself (Object.is), as the limiter cache does', () => {
    const plans = new LimiterPlans(['rate']);
    const { make } = made();
    const zero = plans.paramsFor({ rate: 0 }, make(0));
    expect(plans.paramsFor({ rate: -0 }, make(-0))).not.toBe(zero);
    const nan = plans.paramsFor({ rate: NaN }, make(NaN));
    expect(plans.paramsFor({ rate: NaN }, make(NaN))).toBe(nan);
  });

  it('remembers nothing of options that failed validation', () => {
    const plans = new LimiterPlans(['limit']);
    const failing = () => {
      throw new RangeError('bad limit');
    };
    expect(() => plans.paramsFor({ limit: 0 }, failing)).toThrow('bad limit');
    expect(() => plans.paramsFor({ limit: 0 }, failing)).toThrow('bad limit');
  });

  it('freezes the parameters limiters share', () => {
    const plans = new LimiterPlans(['limit']);
    expect(Object.isFrozen(plans.paramsFor({ limit: 1 }, () => ({ limit: 1 })))).toBe(true);
  });

  it('keeps the 32 configurations used last, and makes an older one again', () => {
    const plans = new LimiterPlans(['limit']);
    const { make, count } = made();
    const first = plans.paramsFor({ limit: 0 }, make(0));
    for (let limit = 1; limit < 32; limit++) plans.paramsFor({ limit }, make(limit));
    expect(count()).toBe(32);
    // Used again, the first becomes the newest: the 33rd configuration pushes out limit 1.
    expect(plans.paramsFor({ limit: 0 }, make(0))).toBe(first);
    plans.paramsFor({ limit: 32 }, make(32));
    expect(count()).toBe(33);
    expect(plans.paramsFor({ limit: 0 }, make(0))).toBe(first);
    expect(plans.paramsFor({ limit: 1 }, make(1))).toEqual({ limit: 1, made: 34 });
  });
});
