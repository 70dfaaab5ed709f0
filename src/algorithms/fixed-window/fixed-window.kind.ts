import { anyAlgorithm, LimitKind } from '../limit-kind';
import { fixedWindow } from './fixed-window.algorithm';
import { CountLimiter } from './fixed-window.limiter';
import { FixedWindowOptions, fixedWindowParams } from './fixed-window.model';

/** `@CountLimit` and `factory.countLimiter`. */
export const fixedWindowKind: LimitKind<FixedWindowOptions, CountLimiter> = {
  name: 'fixedWindow',
  decorator: '@CountLimit',
  defaultPrefix: 'countLimit:',
  optionNames: ['limit', 'period'],
  algorithm: fixedWindow,
  compile(options, where) {
    const params = fixedWindowParams(options, where);
    return {
      algorithm: anyAlgorithm(fixedWindow),
      params,
      newRequest: () => undefined,
      windowSeconds: params.periodMs / 1000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new CountLimiter(source, key, fixedWindowParams(options, where)),
};
