import { ExecutionContext } from '@nestjs/common';
import { LIMIT_KINDS } from '../../../src/algorithms/registry';
import { LimitContext, MemoryStore } from '../../../src';
import { CompiledLimit, compileLimit, ResolvableLimit } from '../../../src/compile/compiled-limit';

/** Valid values of every numeric option, per algorithm (a new algorithm must add its own). */
const VALUES: Record<string, Record<string, unknown>> = {
  rateLimit: {
    rate: 2,
    burst: 3,
    permits: 2,
    timeout: 1,
    expire: 30,
    initialPermits: 4,
    block: 60,
    lease: 5,
  },
  countLimit: { limit: 3, period: 7, permits: 2, block: 60, lease: 5 },
  slidingWindowLimit: { limit: 3, window: 7, permits: 2, block: 60 },
  concurrencyLimit: { max: 3, lease: 7, permits: 2 },
  leakyBucketLimit: { capacity: 3, rate: 2, permits: 2, block: 60, lease: 5 },
  approximateSlidingWindowLimit: { limit: 3, window: 7, permits: 2, block: 60 },
  quotaLimit: {
    limit: 10,
    cycle: 'month',
    anchor: 15,
    weekStart: 2,
    softLimit: 5,
    idempotencyWindow: 60,
    permits: 2,
  },
};
/** Options that size a limit in place of another (capacity instead of burst): their own set. */
const INSTEAD: Record<string, Record<string, Record<string, number>>> = {
  rateLimit: {
    capacity: { rate: 2, capacity: 6, permits: 2, timeout: 1, expire: 30, initialPermits: 4 },
  },
};
const valuesFor = (kind: string, option: string) => INSTEAD[kind]?.[option] ?? VALUES[kind];
/** Options that are not numbers (a variant's switch, which outcomes count): not resolvable. */
const NOT_NUMERIC = ['approximate', 'count'];
/** A kind's options that are no numbers, or that it refuses (a quota has no `block`). */
const NOT_NUMERIC_OF: Record<string, string[]> = {
  quotaLimit: ['cycle', 'timeZone', 'idempotencyKey', 'block'],
};

const ctx: LimitContext = {
  request: {},
  ip: '127.0.0.1',
  handler: 'C.m',
  context: {} as ExecutionContext,
};

/** Compiles as the kind's decorator would record it (a variant by its switch option). */
const compile = (name: string, options: Record<string, unknown>) => {
  const { variant, decorator } = LIMIT_KINDS.find((kind) => kind.name === name)!;
  const kind = variant?.of ?? name;
  const all = variant ? { ...options, [variant.when]: true } : options;
  return compileLimit({ kind, decorator, options: all }, 'C.m', '');
};

const cases = LIMIT_KINDS.flatMap((kind) =>
  kind.optionNames
    .filter((option) => !NOT_NUMERIC.includes(option))
    .filter((option) => !NOT_NUMERIC_OF[kind.name]?.includes(option))
    .map((option) => [kind.name, option] as const),
);

describe('every numeric option of every decorator may be a function of the request', () => {
  it('covers every algorithm in the registry', () => {
    expect(Object.keys(VALUES).sort()).toEqual(LIMIT_KINDS.map((kind) => kind.name).sort());
    for (const [kind, option] of cases) {
      expect([kind, option, valuesFor(kind, option)[option]]).toEqual([
        kind,
        option,
        expect.any(Number),
      ]);
    }
  });

  it.each(cases)('%s: %s', async (kind, option) => {
    const values = valuesFor(kind, option);
    expect(values[option]).toEqual(expect.any(Number));
    const fixed = compile(kind, values) as CompiledLimit;
    expect(fixed.resolve).toBeUndefined();
    for (const fn of [() => values[option], async () => values[option]]) {
      const dynamic = compile(kind, { ...values, [option]: fn }) as ResolvableLimit;
      const run = await dynamic.resolve(ctx);
      expect(run.params).toEqual(fixed.params);
      expect(run.windowSeconds).toEqual(fixed.windowSeconds);
      if (kind === 'rateLimit') expect(run.newRequest()).toEqual(fixed.newRequest());
      const cost = (limit: CompiledLimit) => (limit.newRequest() as { permits?: number }).permits;
      expect(cost(run)).toBe(cost(fixed));
    }
  });
});

it('a function may return a duration string, as a static value may be one', async () => {
  const fixed = compile('countLimit', { limit: 3, period: '1m', block: '2h' }) as CompiledLimit;
  expect(fixed.params).toMatchObject({ periodMs: 60_000, blockMicros: 7_200_000_000 });
  const dynamic = compile('countLimit', {
    limit: 3,
    period: () => '1m',
    block: async () => '2h',
  }) as ResolvableLimit;
  expect((await dynamic.resolve(ctx)).params).toEqual(fixed.params);
  const wrong = compile('countLimit', { limit: 3, period: () => '1 m' }) as ResolvableLimit;
  await expect(wrong.resolve(ctx)).rejects.toThrow(
    "@CountLimit on C.m: option 'period' must be seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d', got '1 m' (resolved for this request: period = '1 m')",
  );
});

describe('static values next to functions are still checked at start-up', () => {
  it('refuses a wrong static value', () => {
    expect(() => compile('countLimit', { limit: () => 5, period: 0 })).toThrow(
      "@CountLimit on C.m: option 'period' must be a finite number > 0, got 0",
    );
    expect(() => compile('slidingWindowLimit', { limit: () => 5 })).toThrow(
      "@SlidingWindowLimit on C.m: option 'window' must be a finite number > 0, got undefined",
    );
  });

  it('leaves a check that depends on a function to the request', async () => {
    // permits 5 against rate * burst: fine once the rate is 5, refused while it is 1.
    let rate = 5;
    const limit = compile('rateLimit', { rate: () => rate, permits: 5 }) as ResolvableLimit;
    await expect(limit.resolve(ctx)).resolves.toMatchObject({ params: { maxPermits: 5 } });
    rate = 1;
    await expect(limit.resolve(ctx)).rejects.toThrow(
      "@RateLimit on C.m: option 'permits' must be at most rate * burst (1) when timeout is 0, got 5 (resolved for this request: rate = 1)",
    );
  });

  it('makes each request its own params from its values, under one partition for every value', async () => {
    const limit = compile('countLimit', {
      limit: (c: LimitContext) => c.user.n,
    }) as ResolvableLimit;
    const of = (n: number) => limit.resolve({ ...ctx, user: { n } });
    const [two, twoAgain, three] = [await of(2), await of(2), await of(3)];
    expect([two.params, twoAgain.params, three.params]).toMatchObject([
      { limit: 2 },
      { limit: 2 },
      { limit: 3 },
    ]);
    // Nothing is kept per value: a second request with the same value gets params of its own.
    expect(twoAgain.params).not.toBe(two.params);
    expect(two.partition).toBeDefined();
    expect(twoAgain.partition).toBe(two.partition);
    expect(three.partition).toBe(two.partition);
  });

  it('keeps a tenant’s count on the memory store when the plan is compiled again or another handler shares its key', async () => {
    const definition = {
      kind: 'countLimit',
      decorator: '@CountLimit',
      options: { limit: (c: LimitContext) => c.user.plan, period: 600 },
    };
    const store = new MemoryStore();
    const decide = async (handler: string) => {
      // A live override compiles every handler again; a module default is one per handler.
      const run = await (compileLimit(definition, handler, '') as ResolvableLimit).resolve({
        ...ctx,
        user: { plan: 3 },
      });
      const { algorithm, params, partition } = run;
      const request = run.newRequest();
      return (await store.evaluate({ algorithm, key: 'tenant:acme', params, partition, request }))
        .allowed;
    };
    const allowed = [];
    for (const handler of ['C.m', 'C.m', 'C.other', 'C.m']) allowed.push(await decide(handler));
    // One key, one count, as in Redis: the fourth request is over the plan of 3.
    expect(allowed).toEqual([true, true, true, false]);
  });

  it('gives a limit of values only no partition: its params object stands for it', async () => {
    const limit = compile('countLimit', { limit: 3, period: 7 }) as CompiledLimit;
    expect(limit.partition).toBeUndefined();
    const costOnly = compile('countLimit', { limit: 3, permits: () => 1 }) as ResolvableLimit;
    const [first, second] = [await costOnly.resolve(ctx), await costOnly.resolve(ctx)];
    expect(first.partition).toBeUndefined();
    expect(second.params).toBe(first.params);
  });
});

describe('a function returning a value outside the engine ranges is refused per request', () => {
  const TIMES = 'from 1ms to 3650d (0.001 to 315360000 seconds)';
  it.each([
    [
      'approximateSlidingWindowLimit',
      'window 31536000000',
      { limit: 5, window: () => 31_536_000_000 },
      `@SlidingWindowLimit on C.m: option 'window' must be ${TIMES}, got 31536000000 (resolved for this request: window = 31536000000)`,
    ],
    [
      'countLimit',
      'period 1e-9',
      { limit: 1, period: () => 1e-9 },
      `@CountLimit on C.m: option 'period' must be ${TIMES}, got 1e-9 (resolved for this request: period = 1e-9)`,
    ],
    [
      'leakyBucketLimit',
      'rate 1e-300',
      { capacity: 1, rate: () => 1e-300 },
      "@LeakyBucketLimit on C.m: option 'rate' must be from 3.1709791983764586e-9 (one per 3650d) to 1000000 (one a µs) per second, got 1e-300 (resolved for this request: rate = 1e-300)",
    ],
    [
      'rateLimit',
      'expire 1e300',
      { rate: 1, expire: () => 1e300 },
      "@RateLimit on C.m: option 'expire' must be at most 3650d (315360000 s), got 1e+300 (resolved for this request: expire = 1e+300)",
    ],
    [
      'countLimit',
      'block [1, 1e300]',
      { limit: 1, period: 1, block: () => [1, 1e300] },
      `@CountLimit on C.m: option 'block[1]' must be ${TIMES}, got 1e+300 (resolved for this request: block = [1,1e+300])`,
    ],
  ])('%s: %s', async (kind, _value, options, message) => {
    const limit = compile(kind, options) as ResolvableLimit;
    await expect(limit.resolve(ctx)).rejects.toThrow(message);
  });

  it('a static value next to a function is checked against the function probe, not refused', () => {
    // limit * window below 2^53 µs: a day with the probe's limit would pass it; checked per request.
    const limit = compile('approximateSlidingWindowLimit', { limit: () => 5, window: '1d' });
    expect((limit as ResolvableLimit).resolve).toBeDefined();
  });
});
