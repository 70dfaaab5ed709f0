import { RedisClock } from '../../../../../src/stores/redis/engine/redis-clock';

describe('RedisClock', () => {
  it('has no deadline until a reply was seen, and none for an infinite local deadline', () => {
    const clock = new RedisClock(() => 0);
    expect(clock.deadline(500)).toBe('');
    clock.sample(5_000_000, 1_000);
    expect(clock.deadline(Infinity)).toBe('');
  });

  it('maps a local deadline with the tightest lower bound of the offset', () => {
    const clock = new RedisClock(() => 0);
    // Redis is 10 s ahead; the replies took 3 ms, then 1 ms, then 7 ms to come back.
    clock.sample(10_000_000 + 100_000 - 3_000, 100);
    clock.sample(10_000_000 + 200_000 - 1_000, 200);
    clock.sample(10_000_000 + 300_000 - 7_000, 300);
    // offset >= 10 s - 1 ms: the deadline is never later than the true one.
    expect(clock.deadline(1_000)).toBe(String(1_000_000 + 10_000_000 - 1_000));
  });

  it('forgets samples older than two windows of 10 s, as the clocks drift', () => {
    const clock = new RedisClock(() => 0);
    clock.sample(50_000_000, 0); // offset 50 s
    clock.sample(40_000_000 + 10_000_000, 10_000); // offset 40 s, next window
    expect(clock.deadline(0)).toBe('50000000');
    clock.sample(40_000_000 + 20_000_000, 20_000); // a third window: the first is gone
    expect(clock.deadline(0)).toBe('40000000');
  });
});
