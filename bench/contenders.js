'use strict';
// The library-level contenders. Each gets its own ioredis client (same options apart
// from enableAutoPipelining) and returns `decide(key) -> Promise<boolean allowed>`.
// Limits are high so that every decision takes the normal, allowed path.
const { default: Redis } = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
const { RedisStore, RateLimiterFactory } = require('../lib');

const HIGH_LIMIT = 1e9;
const PERIOD_S = 60;

async function client(port, autoPipelining) {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    enableAutoPipelining: autoPipelining,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
  });
  await redis.connect();
  return redis;
}

const KINDS = {
  // Our token bucket through the public factory: rate 1e6/s, burst 1 s.
  tokenBucket(redis) {
    const factory = new RateLimiterFactory(new RedisStore({ client: redis }));
    return (key) => factory.rateLimiter({ key, rate: 1e6, burst: 1 }).tryAcquire();
  },
  // Our fixed-window counter through the public factory.
  counter(redis) {
    const factory = new RateLimiterFactory(new RedisStore({ client: redis }));
    return (key) => factory.countLimiter({ key, limit: HIGH_LIMIT, period: PERIOD_S }).tryAcquire();
  },
  // rate-limiter-flexible: consume() rejects with a RateLimiterRes on deny.
  rlf(redis) {
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: false,
      points: HIGH_LIMIT,
      duration: PERIOD_S,
      keyPrefix: 'rlf',
    });
    return (key) =>
      limiter.consume(key).then(
        () => true,
        (rejection) => {
          if (rejection instanceof Error) throw rejection;
          return false;
        },
      );
  },
  // @nest-lab/throttler-storage-redis: the storage @nestjs/throttler calls per request.
  nestlab(redis) {
    const storage = new ThrottlerStorageRedisService(redis);
    return (key) =>
      storage
        .increment(key, PERIOD_S * 1000, HIGH_LIMIT, PERIOD_S * 1000, 'default')
        .then((r) => !r.isBlocked);
  },
};

const LABELS = {
  tokenBucket: 'nestjs-limiter token bucket',
  counter: 'nestjs-limiter counter',
  rlf: 'rate-limiter-flexible RateLimiterRedis',
  nestlab: '@nest-lab/throttler-storage-redis',
};

/** Every contender: the four kinds, each without and with ioredis auto-pipelining. */
function contenderList() {
  const list = [];
  for (const autoPipelining of [false, true]) {
    for (const kind of Object.keys(KINDS)) {
      list.push({
        id: `${kind}${autoPipelining ? '+ap' : ''}`,
        kind,
        autoPipelining,
        label: LABELS[kind],
      });
    }
  }
  return list;
}

async function setUp(contender, port) {
  const redis = await client(port, contender.autoPipelining);
  return { decide: KINDS[contender.kind](redis), close: () => redis.quit() };
}

module.exports = { contenderList, setUp, client, KINDS, LABELS, HIGH_LIMIT, PERIOD_S };
