import { concurrencyLimitStep } from '../../../src/algorithms/concurrency-limit/concurrency-limit.memory';
import {
  concurrencyLimitParams,
  ConcurrencyLimitRequest,
} from '../../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { twinTrace } from './twin-trace';

const acquire = (id: string): ConcurrencyLimitRequest => ({ op: 'acquire', id });
const release = (id: string): ConcurrencyLimitRequest => ({ op: 'release', id });

describe('concurrencyLimit: the model and its memory twin', () => {
  it('holds `max` slots until released or their lease ends', () => {
    const slots = twinTrace(concurrencyLimitStep, concurrencyLimitParams({ max: 2, lease: 30 }));
    expect(slots.at(0, acquire('a'))).toBe('A1');
    expect(slots.at(1, acquire('b'))).toBe('A0');
    expect(slots.at(2, acquire('c'))).toBe('D0/28s'); // a's lease ends at t=30
    expect(slots.at(3, release('a'), acquire('c'))).toBe('A1 A0');
    expect(slots.at(20, acquire('b'))).toBe('A0'); // b renews its own slot
    expect(slots.lastReset()).toBe('30s'); // b's new lease, the last to end
    // c's lease ended at t=33 without a release (a crashed process): its slot is free.
    expect(slots.at(34, acquire('d'), acquire('e'))).toBe('A0 D0/16s');
    // Releasing what is not held changes nothing; the last release drops the state.
    expect(slots.at(35, release('zzz'), release('b'), release('d'))).toBe('A0 A1 A2');
    expect(slots.ttlFrom(35)).toBe('none');
  });
});
