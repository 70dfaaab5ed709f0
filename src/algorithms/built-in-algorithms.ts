import { concurrency } from './concurrency/concurrency.algorithm';
import { fixedWindow } from './fixed-window/fixed-window.algorithm';
import { leakyBucket } from './leaky-bucket/leaky-bucket.algorithm';
import { LimiterAlgorithm } from './limiter-algorithm';
import { slidingWindow } from './sliding-window/sliding-window.algorithm';
import { tokenBucket } from './token-bucket/token-bucket.algorithm';

/**
 * Every algorithm the decorators use. RedisStore defines their scripts when it is created:
 * an ioredis auto-pipeline copies the client's commands when it starts, so a script
 * defined later in the same tick is missing from it.
 */
export const BUILT_IN_ALGORITHMS: readonly LimiterAlgorithm<any, any, any>[] = [
  tokenBucket,
  fixedWindow,
  slidingWindow,
  concurrency,
  leakyBucket,
];
