import { EngineAlgorithm } from './engine-algorithm';
import { LIMIT_KINDS } from './registry';
import { coalescedAcquire } from './state-ops/coalesced';

/**
 * Every algorithm the decorators use: each is found by its Lua name in the table of the
 * engine library (stores/redis/engine/library.lua); its script form, for Redis without
 * Functions, is defined when the store is created, since an ioredis auto-pipeline copies the
 * client's commands when it starts.
 */
export const BUILT_IN_ALGORITHMS: readonly EngineAlgorithm<any, any, any>[] = [
  ...LIMIT_KINDS.flatMap((kind) => {
    const ops = kind.ops;
    if (!ops) return [kind.algorithm];
    const all = [kind.algorithm, ops.peek, ops.reset, ops.block, ops.refund, ops.charge];
    return all.filter((algorithm) => algorithm !== undefined);
  }),
  // Last, so that every other algorithm keeps its index.
  ...LIMIT_KINDS.map((kind) => coalescedAcquire(kind.algorithm)).filter(
    (algorithm) => algorithm !== undefined,
  ),
];
