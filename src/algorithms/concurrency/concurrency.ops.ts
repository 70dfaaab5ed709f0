import { LimiterAlgorithm } from '../limiter-algorithm';
import { blocksLua, STATE_OPS_LUA } from '../state-ops/block-lua';
import { ttlWithBlock } from '../state-ops/blockable';
import { peekOf, resetOf } from '../state-ops/state-ops';
import { concurrency } from './concurrency.algorithm';
import { ConcurrencyParams, concurrencyRequest, ConcurrencyState } from './concurrency.model';

/**
 * Blocks the key for the request's µs from now: acquires are denied until then, releases
 * still run (concurrency.lua). The block is the zset member '#block', as on the sliding log.
 */
const block: LimiterAlgorithm<ConcurrencyParams, number, ConcurrencyState> = {
  commandName: 'limiterConcurrencyBlock',
  stateOf: concurrency,
  luaIncludes: [blocksLua('zset'), STATE_OPS_LUA],
  // Written over any earlier block: a concurrency key keeps no levels.
  lua: 'return block_state(zset_block, key, now, argv, true)',
  paramsArgv: () => [],
  requestArgv: (micros) => [String(micros)],
  step: (state, now, _params, micros, expiresAt) => {
    const until = now + micros;
    return {
      state: { leases: state?.leases ?? new Map(), blockedUntilMicros: until },
      ttlMs: ttlWithBlock(expiresAt, until, now),
      reply: [1, 0, 0, 0, 0],
    };
  },
  limit: concurrency.limit,
};

/**
 * Peek, reset and block on a concurrency key (DESIGN §9). No refund: a slot is released.
 * A block denies acquires only: a release is never refused.
 */
export const concurrencyOps = {
  peek: peekOf(concurrency, 'zset'),
  reset: resetOf(concurrency),
  block,
  /** A peek takes a slot under an id no request has, on the snapshot that is then restored. */
  peekRequest: concurrencyRequest('acquire', 'peek'),
};
