import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { LimiterCacheOptions } from './limiter/limiter-cache';
import { LimiterStore } from './stores/limiter-store';

/**
 * Options of {@link RateLimiterModule.forRoot}.
 *
 * @publicApi
 */
export interface RateLimiterModuleOptions {
  /** A Redis URL, ioredis options, or an ioredis client (standalone, Sentinel, Cluster). Absent: in-memory store. */
  redis?: string | RedisOptions | Redis | Cluster;
  /** A custom store instead of `redis`. */
  store?: LimiterStore;
  /** Prepended to every key, default ''. */
  keyPrefix?: string;
  /** LRU of programmatic limiter instances: `max` (default 10_000), idle `ttl` in ms (default 300_000). */
  cache?: LimiterCacheOptions;
}
