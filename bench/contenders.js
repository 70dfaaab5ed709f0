'use strict';
// The library-level contenders. Each gets its own ioredis client (same options apart
// from enableAutoPipelining) and returns `decide(key) -> Promise<boolean allowed>`.
// Limits are high so that every decision takes the normal, allowed path.
const { default: Redis } = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
const { RedisStore, RateLimiterFactory } = require('../lib');
const { sleep } = require('./redis');

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

/**
 * Until the store's own connection is ready, RedisStore sends its scripts through the
 * client, so a default row could silently measure the ioredis path. `dedicated` is private
 * to the store: if it is renamed, this fails loudly rather than measure the wrong thing.
 */
async function dedicatedReady(store) {
  for (let i = 0; i < 100; i++) {
    if (store.dedicated?.ready()) return;
    await sleep(20);
  }
  throw new Error('the RedisStore dedicated connection did not become ready');
}

// Ours through the public factory: the token bucket at rate 1e6/s, burst 1 s; the counter.
const OURS = {
  tokenBucket: (factory) => (key) => factory.rateLimiter({ key, rate: 1e6, burst: 1 }).tryAcquire(),
  counter: (factory) => (key) =>
    factory.countLimiter({ key, limit: HIGH_LIMIT, period: PERIOD_S }).tryAcquire(),
};

const PEERS = {
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

/**
 * Every contender, in the order the rounds interleave them: our defaults (their scripts
 * skip the client, so its auto-pipelining setting does not apply), then ours through
 * ioredis (`dedicatedConnection: false`) and the peers, each without and with ioredis
 * auto-pipelining.
 */
function contenderList() {
  const entry = (kind, dedicatedConnection, autoPipelining) => ({
    id: `${kind}${kind in OURS && !dedicatedConnection ? '-ioredis' : ''}${autoPipelining ? '+ap' : ''}`,
    kind,
    dedicatedConnection,
    autoPipelining,
    label: LABELS[kind],
  });
  const list = Object.keys(OURS).map((kind) => entry(kind, true, false));
  for (const autoPipelining of [false, true]) {
    for (const kind of Object.keys(OURS)) list.push(entry(kind, false, autoPipelining));
    for (const kind of Object.keys(PEERS)) list.push(entry(kind, false, autoPipelining));
  }
  return list;
}

async function setUp(contender, port) {
  const redis = await client(port, contender.autoPipelining);
  let decide;
  if (contender.kind in OURS) {
    const store = new RedisStore({
      client: redis,
      dedicatedConnection: contender.dedicatedConnection,
    });
    if (contender.dedicatedConnection) await dedicatedReady(store);
    decide = OURS[contender.kind](new RateLimiterFactory(store));
  } else {
    decide = PEERS[contender.kind](redis);
  }
  return { decide, close: () => redis.quit() };
}

module.exports = { contenderList, setUp, client, LABELS, HIGH_LIMIT, PERIOD_S };
