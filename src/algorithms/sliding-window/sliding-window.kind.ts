import { randomUUID } from 'node:crypto';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { staticPermits } from '../permits';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { slidingWindowOps } from './sliding-window.ops';
import { slidingWindow } from './sliding-window.algorithm';
import { SlidingWindowLimiter } from './sliding-window.limiter';
import { SlidingWindowOptions, slidingWindowParams } from './sliding-window.model';

/** `@SlidingWindowLimit` and `factory.slidingWindowLimiter`: the exact log. */
export const slidingWindowKind: LimitKind<SlidingWindowOptions, SlidingWindowLimiter> = {
  name: 'slidingWindow',
  decorator: '@SlidingWindowLimit',
  defaultPrefix: 'slidingWindow:',
  optionNames: ['limit', 'window', 'permits', ...STATE_OPTION_NAMES],
  ops: slidingWindowOps,
  algorithm: slidingWindow,
  compile(options, where) {
    const params = {
      ...slidingWindowParams(options as unknown as SlidingWindowOptions, where),
      ...blockParams(options.block, where),
    };
    const cost = staticPermits(options.permits, params.limit, where);
    return {
      algorithm: anyAlgorithm(slidingWindow),
      params,
      ops: slidingWindowOps,
      count: countOption(options.count, where),
      // Members must be unique across servers even within one microsecond.
      newRequest: (permits = cost) => ({ id: randomUUID(), permits }),
      windowSeconds: params.windowMicros / 1_000_000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new SlidingWindowLimiter(source, key, slidingWindowParams(options, where)),
};
