// Library-level decisions per second, on a single Redis or a cluster: interleaved rounds, each
// with the Node CPU and the Redis CPU it cost per decision.
import type { Cluster, Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore, RedisStoreOptions } from 'nestjs-limiter';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { Decide, runLoad } from './load';
import { BenchRedis, commandCounts, countsSince, redisCpuSeconds } from './redis';
import { inRoundOrder } from './stats';

/**
 * High enough that every decision takes the normal, allowed path, and low enough that the
 * approximate window's limit × window stays below 2^53 µs (its accepted range).
 */
const HIGH_LIMIT = 1e8;
const PERIOD_S = 60;

/**
 * The store options of our "batching off" rows: one script call per decision, the baseline
 * the per-turn batching is measured against.
 */
export const BATCHING_OFF: Partial<RedisStoreOptions> = { maxBatchSize: 1 };

export interface Contender {
  id: string;
  label: string;
  autoPipelining: boolean;
  make(client: Redis | Cluster): Decide;
  /** Ours: the engine calls made so far and the decisions they carried (batch sizes). */
  engineCalls?: { calls: number; decisions: number };
}

export type Limiter =
  'tokenBucket' | 'counter' | 'slidingLog' | 'approximateWindow' | 'leakyBucket' | 'concurrency';
export const LIMITERS: Record<Limiter, (factory: RateLimiterFactory) => Decide> = {
  tokenBucket: (factory) => (key) => factory.rateLimiter({ key, rate: 1e6, burst: 1 }).tryAcquire(),
  counter: (factory) => (key) =>
    factory.countLimiter({ key, limit: HIGH_LIMIT, period: PERIOD_S }).tryAcquire(),
  slidingLog: (factory) => (key) =>
    factory.slidingWindowLimiter({ key, limit: HIGH_LIMIT, window: PERIOD_S }).tryAcquire(),
  approximateWindow: (factory) => (key) =>
    factory
      .slidingWindowLimiter({ key, limit: HIGH_LIMIT, window: PERIOD_S, approximate: true })
      .tryAcquire(),
  leakyBucket: (factory) => (key) =>
    factory.leakyBucketLimiter({ key, capacity: 1, rate: 1e6 }).tryAcquire(),
  // A slot taken and given back: two entries, as every request of a concurrency limit costs.
  concurrency: (factory) => async (key) => {
    const slot = await factory
      .concurrencyLimiter({ key, max: HIGH_LIMIT, lease: PERIOD_S })
      .tryAcquire();
    if (!slot) return false;
    await slot.release();
    return true;
  },
};
export const NAMES: Record<Limiter, string> = {
  tokenBucket: 'token bucket',
  counter: 'counter',
  slidingLog: 'sliding log',
  approximateWindow: 'approximate window',
  leakyBucket: 'leaky bucket',
  concurrency: 'concurrency (acquire + release)',
};

/** Ours through the public factory; batched by default, or with batching off. */
export function ours(limiter: Limiter, batching: boolean): Contender {
  const engineCalls = { calls: 0, decisions: 0 };
  return {
    id: batching ? limiter : `${limiter}-b1`,
    label: `nestjs-limiter ${NAMES[limiter]}${batching ? '' : ', batching off'}`,
    autoPipelining: false,
    engineCalls,
    make(client) {
      const store = new RedisStore({ client, ...(batching ? {} : BATCHING_OFF) });
      store.observeEngineCalls((_durationMs, decisions) => {
        engineCalls.calls++;
        engineCalls.decisions += decisions;
      });
      return LIMITERS[limiter](new RateLimiterFactory(store));
    },
  };
}

/** rate-limiter-flexible: consume() rejects with a RateLimiterRes on deny. */
export function rlf(autoPipelining: boolean, points = HIGH_LIMIT): Contender {
  return {
    id: autoPipelining ? 'rlf+ap' : 'rlf',
    label: `rate-limiter-flexible RateLimiterRedis, auto-pipelining ${autoPipelining ? 'on' : 'off'}`,
    autoPipelining,
    make(client) {
      const limiter = new RateLimiterRedis({
        storeClient: client,
        useRedisPackage: false,
        points,
        duration: PERIOD_S,
        keyPrefix: 'rlf',
      });
      return (key) =>
        limiter.consume(key).then(
          () => true,
          (rejection: unknown) => {
            if (rejection instanceof Error) throw rejection;
            return false;
          },
        );
    },
  };
}

export const STANDALONE = [
  ours('tokenBucket', true),
  ours('counter', true),
  ours('tokenBucket', false),
  ours('counter', false),
  rlf(false),
  rlf(true),
  // Redis's work per decision of each other algorithm, against the same peers.
  ours('slidingLog', true),
  ours('approximateWindow', true),
  ours('leakyBucket', true),
  ours('concurrency', true),
];
export const CLUSTER = [ours('counter', true), ours('counter', false), rlf(false), rlf(true)];

/** One contender's figures, one entry per round. */
export interface Row {
  label: string;
  perSecond: number[];
  nodeCpuUs: number[];
  redisCpuUs: number[];
  p50Ms: number[];
  p99Ms: number[];
  scriptsPerDecision: number;
  commandsPerDecision: number;
  /** Ours: decisions per engine call, per round (absent from older runs). */
  decisionsPerCall?: number[];
}

export const LOAD = { inFlight: 200, keyCount: 10_000 };
const KEYS = Array.from({ length: LOAD.keyCount }, (_, i) => `bench:user:${i}`);

export async function libraryBench(
  redis: BenchRedis,
  contenders: Contender[],
  { rounds, total, log }: { rounds: number; total: number; log: (line: string) => void },
): Promise<Record<string, Row>> {
  const decide = new Map(contenders.map((c) => [c, c.make(redis.client(c.autoPipelining))]));
  const load = { total, inFlight: LOAD.inFlight, keys: KEYS };
  const rows: Record<string, Row> = {};
  // Round 0 warms up every contender (JIT, connections, scripts loaded) and is not recorded.
  for (let round = 0; round <= rounds; round++) {
    for (const contender of inRoundOrder(contenders, round)) {
      await redis.onEachMaster('FLUSHALL');
      const commands = await commandCounts(redis);
      const redisCpu = await redisCpuSeconds(redis);
      const calls = { ...contender.engineCalls };
      const nodeCpu = process.cpuUsage();
      const result = await runLoad(decide.get(contender) as Decide, load);
      const { user, system } = process.cpuUsage(nodeCpu);
      const redisCpuUs = ((await redisCpuSeconds(redis)) - redisCpu) * 1e6;
      const ran = countsSince(commands, await commandCounts(redis));
      if (result.allowed !== result.decisions) throw new Error(`${contender.id} denied some`);
      if (round === 0) continue;
      const row = (rows[contender.id] ??= {
        label: contender.label,
        perSecond: [],
        nodeCpuUs: [],
        redisCpuUs: [],
        p50Ms: [],
        p99Ms: [],
        scriptsPerDecision: ran.scripts / total,
        commandsPerDecision: ran.all / total,
      });
      row.perSecond.push(result.perSecond);
      row.nodeCpuUs.push((user + system) / total);
      row.redisCpuUs.push(redisCpuUs / total);
      row.p50Ms.push(result.p50Ms);
      row.p99Ms.push(result.p99Ms);
      const engine = contender.engineCalls;
      if (engine && calls.calls !== undefined && engine.calls > calls.calls) {
        (row.decisionsPerCall ??= []).push(
          (engine.decisions - calls.decisions!) / (engine.calls - calls.calls),
        );
      }
      log(
        `  ${redis.kind} round ${round} ${contender.id.padEnd(14)} ${Math.round(result.perSecond)}/s, ` +
          `CPU per decision: Node ${((user + system) / total).toFixed(2)} µs, Redis ${(redisCpuUs / total).toFixed(2)} µs` +
          (row.decisionsPerCall
            ? `, ${row.decisionsPerCall.at(-1)!.toFixed(1)} decisions a call`
            : ''),
      );
    }
  }
  return rows;
}
