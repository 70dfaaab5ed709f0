import { slidingWindowLimitStep } from '../../../src/algorithms/sliding-window-limit/sliding-window-limit.memory';
import { slidingWindowLimitParams } from '../../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { twinTrace } from './twin-trace';

describe('slidingWindowLimit (a sliding-window log): the model and its memory twin', () => {
  it('allows `limit` within any window, and retries when the oldest request leaves it', () => {
    const log = twinTrace(
      slidingWindowLimitStep,
      slidingWindowLimitParams({ limit: 2, window: 10 }),
    );
    expect(log.at(0, { id: 'a' })).toBe('A1');
    expect(log.at(4, { id: 'b' })).toBe('A0');
    expect(log.at(6, { id: 'c' })).toBe('D0/4s'); // t=0 leaves the window at t=10
    expect(log.lastReset()).toBe('8s'); // t=4 leaves it at t=14
    // At t=10 the request of t=0 is out: no boundary lets a burst of 2 more through.
    expect(log.at(10, { id: 'd' }, { id: 'e' })).toBe('A0 D0/4s');
    expect(log.ttlFrom(10)).toBe('10s');
  });
});
