import { defineAlgorithm } from '../../../src/algorithms/define-algorithm';
import { countLimitDefinition } from '../../../src/algorithms/count-limit/count-limit.definition';
import { overridableOptions } from '../../../src/algorithms/registry';
import { checkOverrides, OVERRIDABLE_OPTIONS } from '../../../src/compile/limit-overrides';

describe('the options an override may change', () => {
  it("are every algorithm's numbers, in their definitions' order, then block", () => {
    expect(OVERRIDABLE_OPTIONS).toEqual([
      'rate',
      'burst',
      'capacity',
      'permits',
      'timeout',
      'expire',
      'initialPermits',
      'lease',
      'limit',
      'period',
      'window',
      'max',
      'softLimit',
      'block',
    ]);
  });

  it('grow with the options a definition declares; a variant switch is not one', () => {
    const { definition } = countLimitDefinition;
    const { kind } = defineAlgorithm({
      ...definition,
      name: 'jitteredWindow',
      options: [...definition.options, 'jitter'],
      variant: { of: 'countLimit', when: 'jittered' },
    });
    expect(overridableOptions([kind])).toEqual([
      'limit',
      'period',
      'permits',
      'lease',
      'jitter',
      'block',
    ]);
  });

  it('refuse any other option, naming the limit', () => {
    expect(() => checkOverrides(new Map([['perIp', { limit: 2, count: 'failures' }]]))).toThrow(
      "override of 'perIp': option 'count' must be unset: an override changes only rate, burst, capacity, permits, timeout, expire, initialPermits, lease, limit, period, window, max, softLimit, block, got 'failures'",
    );
  });
});
