'use strict';
// Section 3: Redis commands per 1,000 requests from one key that is already denied.
// Counted with INFO commandstats, which also counts the commands a script runs.
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
const { RedisStore, RateLimiterFactory } = require('../lib');
const { client } = require('./contenders');
const { runLoad } = require('./load');
const { parseCommandStats, diffCommandStats, totalCalls, SCRIPT_COMMANDS } = require('./stats');

const REQUESTS = 1000;

// Each makes `decide()` for one key whose limit is one request a minute.
const FLOODERS = {
  tokenBucket: {
    label: 'nestjs-limiter token bucket (rate 1/60, burst 60)',
    make: (redis) => {
      const factory = new RateLimiterFactory(new RedisStore({ client: redis }));
      return () => factory.rateLimiter({ key: 'flood:tb', rate: 1 / 60, burst: 60 }).tryAcquire();
    },
  },
  counter: {
    label: 'nestjs-limiter counter (limit 1, period 60)',
    make: (redis) => {
      const factory = new RateLimiterFactory(new RedisStore({ client: redis }));
      return () =>
        factory.countLimiter({ key: 'flood:counter', limit: 1, period: 60 }).tryAcquire();
    },
  },
  rlf: {
    label: 'rate-limiter-flexible (points 1, duration 60, defaults)',
    make: (redis) => {
      const limiter = new RateLimiterRedis({
        storeClient: redis,
        useRedisPackage: false,
        points: 1,
        duration: 60,
        keyPrefix: 'rlf',
      });
      return () =>
        limiter.consume('flood').then(
          () => true,
          (r) => (r instanceof Error ? Promise.reject(r) : false),
        );
    },
  },
  nestlab: {
    label: '@nest-lab/throttler-storage-redis (limit 1, ttl 60 s, block 60 s)',
    make: (redis) => {
      const storage = new ThrottlerStorageRedisService(redis);
      return () =>
        storage.increment('flood', 60_000, 1, 60_000, 'default').then((r) => !r.isBlocked);
    },
  },
};

async function floodBench(redis, { log = console.log } = {}) {
  const results = {};
  for (const [id, flooder] of Object.entries(FLOODERS)) {
    const connection = await client(redis.port, false);
    try {
      const decide = flooder.make(connection);
      // Get the key denied first: the first request is allowed, the second denied.
      const first = await decide();
      const second = await decide();
      if (!first || second)
        throw new Error(`${id}: expected allowed then denied, got ${first}, ${second}`);
      const before = parseCommandStats(redis.cli('INFO', 'commandstats'));
      const load = await runLoad(decide, {
        total: REQUESTS,
        inFlight: 50,
        keys: 1,
        keyOf: () => '',
      });
      const diff = diffCommandStats(before, parseCommandStats(redis.cli('INFO', 'commandstats')));
      results[id] = {
        label: flooder.label,
        requests: REQUESTS,
        denied: REQUESTS - load.allowed,
        commands: totalCalls(diff),
        // Every contender here sends scripts only: the script calls are its round trips.
        roundTrips: totalCalls(diff, (name) => SCRIPT_COMMANDS.has(name)),
        byCommand: Object.fromEntries(
          Object.entries(diff).map(([name, stat]) => [name, stat.calls]),
        ),
      };
      log(
        `  ${id.padEnd(12)} ${results[id].commands} commands (${results[id].roundTrips} round trips) per ${REQUESTS} denied requests`,
      );
    } finally {
      connection.disconnect();
    }
  }
  return { requests: REQUESTS, inFlight: 50, results };
}

module.exports = { floodBench };
