'use strict';
// Section 1b: JavaScript cost per decision, with a stub in place of Redis (every command
// answers at once with a canned "allowed" reply). What remains is each library's own work
// plus promise plumbing: the part of the Node CPU per decision a library controls.
const { default: Redis } = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');
const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
const { RedisStore, RateLimiterFactory } = require('../lib');
const { fixedWindow } = require('../lib/algorithms/fixed-window/fixed-window.algorithm');
const { fixedWindowParams } = require('../lib/algorithms/fixed-window/fixed-window.model');
const { median } = require('./stats');

const COUNTER_REPLY = [1, 999, 60_000_000, 0, 0];
const BUCKET_REPLY = [1, '999999', '1', '0', '0'];

/** Enough of an ioredis client for defineCommand-based libraries. */
function stubClient(reply) {
  return {
    status: 'ready',
    options: {},
    defineCommand(name) {
      this[name] = () => Promise.resolve(reply);
    },
  };
}

const CASES = {
  'nestjs-limiter token bucket (factory)': () => {
    const factory = new RateLimiterFactory(new RedisStore({ client: stubClient(BUCKET_REPLY) }));
    return (key) => factory.rateLimiter({ key, rate: 1e6, burst: 1 }).tryAcquire();
  },
  'nestjs-limiter counter (factory)': () => {
    const factory = new RateLimiterFactory(new RedisStore({ client: stubClient(COUNTER_REPLY) }));
    return (key) => factory.countLimiter({ key, limit: 1e9, period: 60 }).tryAcquire();
  },
  'nestjs-limiter counter (store.evaluate, as the guard calls it)': () => {
    const store = new RedisStore({ client: stubClient(COUNTER_REPLY) });
    const params = fixedWindowParams({ limit: 1e9, period: 60 });
    return (key) => store.evaluate(fixedWindow, key, params, undefined).then((d) => d.allowed);
  },
  'ioredis defined command alone (the floor)': () => {
    const client = stubClient(COUNTER_REPLY);
    client.defineCommand('counter');
    return (key) => client.counter(key, '', '1000000000', '60000').then((reply) => reply[0] === 1);
  },
  'rate-limiter-flexible consume': () => {
    const limiter = new RateLimiterRedis({
      storeClient: stubClient([1, 60_000]),
      useRedisPackage: false,
      points: 1e9,
      duration: 60,
      keyPrefix: 'rlf',
    });
    return (key) =>
      limiter.consume(key).then(
        () => true,
        () => false,
      );
  },
  '@nest-lab/throttler-storage-redis increment': () => {
    const redis = new Redis({ lazyConnect: true });
    redis.call = () => Promise.resolve([1, 60_000, 0, 0]);
    const storage = new ThrottlerStorageRedisService(redis);
    return (key) =>
      storage.increment(key, 60_000, 1e9, 60_000, 'default').then((r) => !r.isBlocked);
  },
};

async function overheadBench({ decisions = 200_000, rounds = 3, log = console.log } = {}) {
  const keys = Array.from({ length: 10_000 }, (_, i) => `bench:user:${String(i).padStart(5, '0')}`);
  const decide = Object.fromEntries(Object.entries(CASES).map(([name, make]) => [name, make()]));
  const samples = {};
  for (let round = 0; round <= rounds; round++) {
    for (const [name, fn] of Object.entries(decide)) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < decisions; i++) await fn(keys[i % keys.length]);
      const ns = Number(process.hrtime.bigint() - started) / decisions;
      if (round > 0) (samples[name] ??= []).push(ns); // round 0 warms up
    }
  }
  const results = {};
  for (const [name, list] of Object.entries(samples)) {
    results[name] = { nsPerDecision: median(list), rounds: list.map(Math.round) };
    log(`  ${name.padEnd(64)} ${Math.round(results[name].nsPerDecision)} ns`);
  }
  return { decisions, rounds, results };
}

module.exports = { overheadBench };
