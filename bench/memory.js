'use strict';
// Section 4: MEMORY USAGE of one active limit (one key of 30 characters) per algorithm,
// ours and the peers'. Each limit gets 3 requests a few ms apart, so state values are
// realistic (a token bucket's stored permits become fractional), and we count the keys
// one limit creates.
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
const { RedisStore, RateLimiterFactory } = require('../lib');
const { client } = require('./contenders');
const { sleep } = require('./redis');

const KEY_LENGTH = 30;
const LIMITS = 50; // limits measured per algorithm; we report the largest and the median key

/** A key of exactly KEY_LENGTH characters. */
function key30(stem, i) {
  const base = `${stem}:${i}:`;
  return base + 'x'.repeat(KEY_LENGTH - base.length);
}

// Our limiters take `prefix: ''` so that the Redis key is the 30-character key itself.
function algorithms(redis) {
  const factory = new RateLimiterFactory(new RedisStore({ client: redis, cacheDenials: false }));
  const rlf = new RateLimiterRedis({
    storeClient: redis,
    useRedisPackage: false,
    points: 100,
    duration: 60,
    keyPrefix: 'rlf',
  });
  const nestlab = new ThrottlerStorageRedisService(redis);
  return {
    tokenBucket: {
      label: 'nestjs-limiter token bucket (rate 10, burst 10)',
      hit: (k) => factory.rateLimiter({ key: k, prefix: '', rate: 10, burst: 10 }).tryAcquire(),
      redisKey: (k) => k,
    },
    counter: {
      label: 'nestjs-limiter counter (limit 100, period 60)',
      hit: (k) => factory.countLimiter({ key: k, prefix: '', limit: 100, period: 60 }).tryAcquire(),
      redisKey: (k) => k,
    },
    slidingWindow: {
      label: 'nestjs-limiter sliding window (limit 100, window 60), 3 requests logged',
      hit: (k) =>
        factory.slidingWindowLimiter({ key: k, prefix: '', limit: 100, window: 60 }).tryAcquire(),
      redisKey: (k) => k,
    },
    concurrency: {
      label: 'nestjs-limiter concurrency (max 10), 3 slots held',
      hit: (k) => factory.concurrencyLimiter({ key: k, prefix: '', max: 10 }).tryAcquire(),
      redisKey: (k) => k,
    },
    leakyBucket: {
      label: 'nestjs-limiter leaky bucket / GCRA (capacity 10, rate 1/60)',
      hit: (k) =>
        factory.leakyBucketLimiter({ key: k, prefix: '', capacity: 10, rate: 1 / 60 }).tryAcquire(),
      redisKey: (k) => k,
    },
    rlf: {
      label: 'rate-limiter-flexible RateLimiterRedis (points 100, duration 60)',
      // rlf stores `${keyPrefix}:${key}`: shorten the key so the Redis key has 30 characters.
      hit: (k) =>
        rlf.consume(k.slice(4)).catch((r) => (r instanceof Error ? Promise.reject(r) : r)),
      redisKey: (k) => `rlf:${k.slice(4)}`,
    },
    nestlab: {
      label: '@nest-lab/throttler-storage-redis (limit 100, ttl 60 s)',
      // stores `{${key}:${throttlerName}}:hits` (and a :blocked key while blocked)
      hit: (k) => nestlab.increment(k.slice(9), 60_000, 100, 60_000, 'd'),
      redisKey: (k) => `{${k.slice(9)}:d}:hits`,
    },
  };
}

async function memoryBench(redis, { log = console.log } = {}) {
  const connection = await client(redis.port, false);
  const results = {};
  try {
    for (const [id, algorithm] of Object.entries(algorithms(connection))) {
      redis.cli('FLUSHALL');
      const keys = Array.from({ length: LIMITS }, (_, i) => key30(`mem:${id}`, i));
      for (let request = 0; request < 3; request++) {
        await Promise.all(keys.map((k) => algorithm.hit(k)));
        await sleep(7);
      }
      const redisKeys = keys.map(algorithm.redisKey);
      if (redisKeys.some((k) => k.length !== KEY_LENGTH))
        throw new Error(`${id}: key length is not ${KEY_LENGTH}`);
      const bytes = (
        await Promise.all(
          redisKeys.map((k) => connection.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')),
        )
      )
        .map(Number)
        .sort((a, b) => a - b);
      const keysPerLimit = Number(await connection.dbsize()) / LIMITS;
      results[id] = {
        label: algorithm.label,
        keyLength: KEY_LENGTH,
        keysPerLimit,
        bytesMax: bytes[bytes.length - 1],
        bytesMedian: bytes[bytes.length >> 1],
        encoding: await connection.call('OBJECT', 'ENCODING', redisKeys[0]),
        sampleValue:
          (await connection.type(redisKeys[0])) === 'string'
            ? await connection.get(redisKeys[0])
            : undefined,
      };
      log(
        `  ${id.padEnd(14)} ${results[id].bytesMax} bytes max, ${results[id].bytesMedian} median, ${keysPerLimit} key(s) per limit (${results[id].encoding})`,
      );
    }
  } finally {
    connection.disconnect();
    redis.cli('FLUSHALL');
  }
  return { keyLength: KEY_LENGTH, limits: LIMITS, results };
}

module.exports = { memoryBench };
