import { anyAlgorithm, LimitKind } from '../limit-kind';
import { permitsRequests, staticPermits } from '../permits';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { fixedWindowOps } from './fixed-window.ops';
import { fixedWindow } from './fixed-window.algorithm';
import { CountLimiter } from './fixed-window.limiter';
import { FixedWindowOptions, fixedWindowParams } from './fixed-window.model';

/** `@CountLimit` and `factory.countLimiter`. */
export const fixedWindowKind: LimitKind<FixedWindowOptions, CountLimiter> = {
  name: 'fixedWindow',
  decorator: '@CountLimit',
  defaultPrefix: 'countLimit:',
  optionNames: ['limit', 'period', 'permits', ...STATE_OPTION_NAMES],
  ops: fixedWindowOps,
  algorithm: fixedWindow,
  compile(options, where) {
    const params = {
      ...fixedWindowParams(options, where),
      ...blockParams(options.block, where),
    };
    return {
      algorithm: anyAlgorithm(fixedWindow),
      params,
      ops: fixedWindowOps,
      count: countOption(options.count, where),
      newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
      windowSeconds: params.periodMs / 1000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new CountLimiter(source, key, fixedWindowParams(options, where)),
};
