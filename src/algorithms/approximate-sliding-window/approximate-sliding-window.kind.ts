import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { permitsRequests, staticPermits } from '../permits';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { approximateSlidingWindowOps } from './approximate-sliding-window.ops';
import { SlidingWindowOptions, slidingWindowParams } from '../sliding-window/sliding-window.model';
import { approximateSlidingWindow } from './approximate-sliding-window.algorithm';
import { ApproximateSlidingWindowLimiter } from './approximate-sliding-window.limiter';

function paramsOf(options: SlidingWindowOptions, where: string) {
  if (options.approximate !== true) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'approximate', options.approximate, 'a boolean'),
    );
  }
  return slidingWindowParams(options, where);
}

/**
 * `@SlidingWindowLimit({ approximate: true })` and `factory.slidingWindowLimiter({ ...,
 * approximate: true })`. Its own prefix: the exact log keeps a sorted set under
 * 'slidingWindow:', and switching a limit to the estimate must not read it.
 */
export const approximateSlidingWindowKind: LimitKind<
  SlidingWindowOptions,
  ApproximateSlidingWindowLimiter
> = {
  name: 'approximateSlidingWindow',
  decorator: '@SlidingWindowLimit',
  defaultPrefix: 'slidingWindowApprox:',
  optionNames: ['limit', 'window', 'approximate', 'permits', ...STATE_OPTION_NAMES],
  ops: approximateSlidingWindowOps,
  algorithm: approximateSlidingWindow,
  variant: { of: 'slidingWindow', when: 'approximate' },
  compile(options, where) {
    const params = {
      ...paramsOf(options as unknown as SlidingWindowOptions, where),
      ...blockParams(options.block, where),
    };
    return {
      algorithm: anyAlgorithm(approximateSlidingWindow),
      params,
      ops: approximateSlidingWindowOps,
      count: countOption(options.count, where),
      newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
      windowSeconds: params.windowMicros / 1_000_000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new ApproximateSlidingWindowLimiter(source, key, paramsOf(options, where)),
};
