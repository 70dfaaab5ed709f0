import { maxCharge } from '../../../src/algorithms/permits';

describe('the most a settle charges beyond its reservation', () => {
  it('is what the limit repays within 3650 days at its own pace', () => {
    // 2 permits refilled over 2 s: one a second, for 315,360,000 s.
    expect(maxCharge(2, 2)).toBe(315_360_000);
    // One a day: 3650 of them.
    expect(maxCharge(1, 86_400)).toBe(3650);
  });

  it('is never above 10^12, nor below 1', () => {
    expect(maxCharge(1_000_000, 0.001)).toBe(1_000_000_000_000);
    expect(maxCharge(1, undefined)).toBe(1_000_000_000_000);
    // A bucket of under a µs (rate 1, burst 1e-13 s: its window rounds to 0) counts 1 µs: 31
    // permits of 1 s each, far within 3650 days.
    expect(maxCharge(1e-13, 0)).toBe(31);
    expect(maxCharge(1e-20, 0)).toBe(1);
  });
});
