import { leakyBucketLimitStep } from '../../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.memory';
import { leakyBucketLimitParams } from '../../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { twinTrace } from './twin-trace';

describe('leakyBucketLimit (GCRA): the model and its memory twin', () => {
  it('lets `capacity` through at once, then one per 1 / rate', () => {
    const step = (state: any, now: number, params: any, request: any) =>
      leakyBucketLimitStep(state, now, params, request);
    const bucket = twinTrace(step, leakyBucketLimitParams({ capacity: 2, rate: 1 }));
    expect(bucket.at(0, undefined, undefined, undefined)).toBe('A1 A0 D0/1s');
    expect(bucket.at(1, undefined)).toBe('A0');
    expect(bucket.ttlFrom(1)).toBe('2s'); // until the theoretical arrival time, t=3
    expect(bucket.at(1.5, undefined)).toBe('D0/0.5s');
    expect(bucket.lastReset()).toBe('1.5s');
    expect(bucket.at(10, undefined, undefined, undefined)).toBe('A1 A0 D0/1s');
  });
});
