import { ExecutionContext } from '@nestjs/common';
import { LimitContext, LimiterConfigError } from '../../../../src';
import { compileLimit, ResolvableLimit } from '../../../../src/compile/compiled-limit';
import { blockParams } from '../../../../src/algorithms/option-rules';

describe('the block option', () => {
  const where = '@CountLimit on A.b';

  it('takes seconds, or escalating steps of seconds (one step is a single block)', () => {
    expect(blockParams(undefined, where)).toEqual({ blockMicros: 0 });
    expect(blockParams(60, where)).toEqual({ blockMicros: 60_000_000 });
    expect(blockParams([60], where)).toEqual({ blockMicros: 60_000_000 });
    expect(blockParams([0.5, 300, 3600], where)).toEqual({
      blockMicros: 500_000,
      blockStepsMicros: [500_000, 300_000_000, 3_600_000_000],
    });
  });

  it.each([
    [[], "option 'block' must be seconds > 0 or a duration, or a non-empty array of them, got []"],
    [[60, 0], "option 'block[1]' must be a finite number of seconds > 0, got 0"],
    [
      [60, '5 min'],
      "option 'block[1]' must be seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d', got '5 min'",
    ],
    [-1, "option 'block' must be a finite number of seconds > 0, got -1"],
  ])('refuses %j naming the option', (value, message) => {
    expect(() => blockParams(value, where)).toThrow(new LimiterConfigError(`${where}: ${message}`));
  });
});

describe('block as a function of the request', () => {
  const ctx: LimitContext = {
    request: {},
    ip: '127.0.0.1',
    handler: 'C.m',
    context: {} as ExecutionContext,
  };

  it('may return steps, made into the params of each request', async () => {
    const limit = compileLimit(
      {
        kind: 'countLimit',
        decorator: '@CountLimit',
        options: { limit: 1, period: 1, block: (c: LimitContext) => (c.ip ? [1, 2] : 5) },
      },
      'C.m',
      '',
    ) as ResolvableLimit;
    const first = await limit.resolve(ctx);
    expect(first.params).toMatchObject({
      blockMicros: 1_000_000,
      blockStepsMicros: [1_000_000, 2_000_000],
    });
    expect((await limit.resolve(ctx)).params).toEqual(first.params);
    expect((await limit.resolve({ ...ctx, ip: '' })).params).toMatchObject({
      blockMicros: 5_000_000,
    });
  });
});
