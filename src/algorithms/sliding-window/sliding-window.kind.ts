import { randomUUID } from 'node:crypto';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { slidingWindow } from './sliding-window.algorithm';
import { SlidingWindowLimiter } from './sliding-window.limiter';
import { SlidingWindowOptions, slidingWindowParams } from './sliding-window.model';

/** `@SlidingWindowLimit` and `factory.slidingWindowLimiter`: the exact log. */
export const slidingWindowKind: LimitKind<SlidingWindowOptions, SlidingWindowLimiter> = {
  name: 'slidingWindow',
  decorator: '@SlidingWindowLimit',
  defaultPrefix: 'slidingWindow:',
  optionNames: ['limit', 'window'],
  algorithm: slidingWindow,
  compile(options, where) {
    const params = slidingWindowParams(options as unknown as SlidingWindowOptions, where);
    return {
      algorithm: anyAlgorithm(slidingWindow),
      params,
      // Members must be unique across servers even within one microsecond.
      newRequest: () => ({ id: randomUUID() }),
      windowSeconds: params.windowMicros / 1_000_000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new SlidingWindowLimiter(source, key, slidingWindowParams(options, where)),
};
