// MEMORY USAGE of one limit's key (a 30-character Redis key) per algorithm at limits 10, 1,000
// and 10,000, each used up to its limit (the most state it keeps), and the keys one limit makes.
import type { Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { rlf } from './library';
import { Decide, runLoad } from './load';
import { BenchRedis } from './redis';

export const KEY_LENGTH = 30;
export const MEMORY_LIMITS = [10, 1000, 10_000];

interface Subject {
  label: string;
  /** decide() for the limit `limit`. */
  make(limit: number): Decide;
  /** What the subject puts before the key it is given, in the Redis key. */
  keyPrefix: string;
}

function subjects(client: Redis): Record<string, Subject> {
  const factory = new RateLimiterFactory(new RedisStore({ client, cacheDenials: false }));
  // `prefix: ''`: the Redis key is the key itself.
  const ours = (label: string, make: (limit: number) => Decide): Subject => ({
    label: `nestjs-limiter ${label}`,
    make,
    keyPrefix: '',
  });
  return {
    tokenBucket: ours(
      'token bucket (rate limit/60, burst 60)',
      (limit) => (key) =>
        factory.rateLimiter({ key, prefix: '', rate: limit / 60, burst: 60 }).tryAcquire(),
    ),
    counter: ours(
      'counter (period 60)',
      (limit) => (key) => factory.countLimiter({ key, prefix: '', limit, period: 60 }).tryAcquire(),
    ),
    slidingWindow: ours(
      'sliding window log (window 60)',
      (limit) => (key) =>
        factory.slidingWindowLimiter({ key, prefix: '', limit, window: 60 }).tryAcquire(),
    ),
    approximateSlidingWindow: ours(
      'approximate sliding window (window 60)',
      (limit) => (key) =>
        factory
          .slidingWindowLimiter({ key, prefix: '', limit, window: 60, approximate: true })
          .tryAcquire(),
    ),
    concurrency: ours(
      'concurrency (slots held)',
      (limit) => (key) =>
        factory
          .concurrencyLimiter({ key, prefix: '', max: limit })
          .tryAcquire()
          .then((slot) => slot !== null),
    ),
    leakyBucket: ours(
      'leaky bucket / GCRA (rate limit/60)',
      (limit) => (key) =>
        factory
          .leakyBucketLimiter({ key, prefix: '', capacity: limit, rate: limit / 60 })
          .tryAcquire(),
    ),
    rlf: {
      label: 'rate-limiter-flexible RateLimiterRedis (duration 60)',
      make: (limit) => rlf(false, limit).make(client),
      keyPrefix: 'rlf:',
    },
  };
}

export interface MemoryRow {
  id: string;
  label: string;
  limit: number;
  requests: number;
  bytes: number;
  keysPerLimit: number;
  encoding: string;
  /** Why a row is wrong: decisions failed, or not all of them were allowed. */
  error?: string;
}

/** Every subject at every limit used up to the limit, and the token bucket with 3 of 10 used. */
export async function memoryBench(redis: BenchRedis): Promise<MemoryRow[]> {
  const client = redis.client(false) as Redis;
  const rows: MemoryRow[] = [];
  const cases = Object.entries(subjects(client)).flatMap(([id, subject]) =>
    MEMORY_LIMITS.map((limit) => ({ id, subject, limit, requests: limit })),
  );
  cases.unshift({ ...cases[0], requests: 3 });
  for (const { id, subject, limit, requests } of cases) {
    await client.flushall();
    const key = `m:${id}:${limit}:`.padEnd(KEY_LENGTH - subject.keyPrefix.length, 'x');
    const load = { total: requests, inFlight: 200, keys: [key] };
    // A row that fails is reported, and fails the memory targets, without losing the run.
    const allowed = await runLoad(subject.make(limit), load).then(
      (result) => `${result.allowed} of ${requests} allowed`,
      (error: Error) => `failed: ${error.message.split('\n')[0]}`,
    );
    const redisKey = subject.keyPrefix + key;
    rows.push({
      id,
      label: subject.label,
      limit,
      requests,
      bytes: Number(await client.call('MEMORY', 'USAGE', redisKey, 'SAMPLES', '0')),
      keysPerLimit: await client.dbsize(),
      encoding: `${await client.call('OBJECT', 'ENCODING', redisKey).catch(() => 'none')}`,
      ...(allowed !== `${requests} of ${requests} allowed` && { error: allowed }),
    });
  }
  return rows;
}
