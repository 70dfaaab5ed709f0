import { defineAlgorithm } from '../../../src/algorithms/define-algorithm';
import { fixedWindowDefinition } from '../../../src/algorithms/fixed-window/fixed-window.definition';
import { overridableOptions } from '../../../src/algorithms/registry';
import { checkOverrides, OVERRIDABLE_OPTIONS } from '../../../src/guard/limit-overrides';

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
      'limit',
      'period',
      'window',
      'max',
      'lease',
      'block',
    ]);
  });

  it('grow with the options a definition declares; a variant switch is not one', () => {
    const { definition } = fixedWindowDefinition;
    const { kind } = defineAlgorithm({
      ...definition,
      name: 'jitteredWindow',
      options: [...definition.options, 'jitter'],
      variant: { of: 'fixedWindow', when: 'jittered' },
    });
    expect(overridableOptions([kind])).toEqual(['limit', 'period', 'permits', 'jitter', 'block']);
  });

  it('refuse any other option, naming the limit', () => {
    expect(() => checkOverrides(new Map([['perIp', { limit: 2, count: 'failures' }]]))).toThrow(
      "override of 'perIp': option 'count' must be unset: an override changes only rate, burst, capacity, permits, timeout, expire, initialPermits, limit, period, window, max, lease, block, got 'failures'",
    );
  });
});
