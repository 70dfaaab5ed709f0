// Redis commands per 1,000 decisions on one key that is already denied (INFO commandstats,
// which counts the commands a script runs too).
import type { Cluster, Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { runLoad } from './load';
import { BenchRedis, commandCounts, countsSince } from './redis';
import { rlf } from './library';

const REQUESTS = 1000;

/**
 * A factory on a store started as the module starts it (`check()`): a store remembers no
 * denial until Redis has confirmed its subscription to other servers' resets.
 */
async function startedFactory(client: Redis | Cluster): Promise<RateLimiterFactory> {
  const store = new RedisStore({ client });
  await store.check();
  return new RateLimiterFactory(store);
}

/** Each makes decide() for one key whose limit is one request a minute. */
const FLOODERS: Record<string, (client: Redis | Cluster) => Promise<() => Promise<boolean>>> = {
  tokenBucket: async (client) => {
    const factory = await startedFactory(client);
    return () => factory.rateLimiter({ key: 'flood:tb', rate: 1 / 60, burst: 60 }).tryAcquire();
  },
  counter: async (client) => {
    const factory = await startedFactory(client);
    return () => factory.countLimiter({ key: 'flood:counter', limit: 1, period: 60 }).tryAcquire();
  },
  rlf: async (client) => {
    const decide = rlf(false, 1).make(client);
    return () => decide('flood');
  },
};

/** The commands Redis ran for 1,000 denied decisions, per flooder. */
export async function floodBench(redis: BenchRedis): Promise<Record<string, number>> {
  const commands: Record<string, number> = {};
  for (const [id, make] of Object.entries(FLOODERS)) {
    await redis.onEachMaster('FLUSHALL');
    const decide = await make(redis.client(false));
    // The first decision is allowed, the second denied: the key is now denied.
    const first = await decide();
    const second = await decide();
    if (!first || second)
      throw new Error(`${id}: expected allowed then denied, got ${first}, ${second}`);
    const before = await commandCounts(redis);
    const load = await runLoad(decide, { total: REQUESTS, inFlight: 50, keys: [''] });
    if (load.allowed !== 0) throw new Error(`${id}: allowed ${load.allowed}`);
    commands[id] = countsSince(before, await commandCounts(redis)).all;
  }
  return commands;
}
