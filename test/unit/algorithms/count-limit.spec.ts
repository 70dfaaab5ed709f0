import { countLimitStep } from '../../../src/algorithms/count-limit/count-limit.memory';
import { countLimitParams } from '../../../src/algorithms/count-limit/count-limit.model';
import { twinTrace } from './twin-trace';

describe('countLimit (a fixed-window counter): the model and its memory twin', () => {
  it('allows `limit` a window from its first request, then denies until the window ends', () => {
    const step = (state: any, now: number, params: any, request: any) =>
      countLimitStep(state, now, params, request);
    const counter = twinTrace(step, countLimitParams({ limit: 3, period: 10 }));
    expect(counter.at(0, undefined, undefined, undefined, undefined)).toBe('A2 A1 A0 D0/10s');
    expect(counter.at(3, undefined)).toBe('D0/7s');
    expect(counter.lastReset()).toBe('7s');
    // The window is timed from its first request (t=0), not from the denials.
    expect(counter.at(10, undefined, undefined)).toBe('A2 A1');
    expect(counter.ttlFrom(10)).toBe('10s');
  });
});
