import { LimiterAlgorithm } from './limiter-algorithm';
import { LIMIT_KINDS } from './registry';

/**
 * Every algorithm the decorators use. RedisStore defines their scripts when it is created:
 * an ioredis auto-pipeline copies the client's commands when it starts, so a script
 * defined later in the same tick is missing from it.
 */
export const BUILT_IN_ALGORITHMS: readonly LimiterAlgorithm<any, any, any>[] = LIMIT_KINDS.map(
  (kind) => kind.algorithm,
);
