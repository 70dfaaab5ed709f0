import { Logger } from '@nestjs/common';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { DEFAULT_STORE_TIMEOUT_MS, RateLimiterModuleOptions } from './rate-limiter.options';
import { LimiterStore } from './stores/limiter-store';
import { MemoryStore } from './stores/memory/memory.store';
import { FailurePolicyStore } from './stores/failure/failure-policy.store';
import { RedisStore } from './stores/redis/redis.store';
import { DecisionMetrics } from './metrics/decision-metrics';
import { DecisionListener } from './contracts/rate-limit-event';
import { LimiterConfigError } from './errors/limiter-config.error';
import { limiterMessages } from './rate-limiter.messages';
import { checkStartUpConnection } from './stores/redis/endpoint/start-up-connection';
import { describeEndpoint } from './stores/redis/endpoint/endpoint-description';
import { withoutPassword } from './stores/redis/endpoint/redis-url';
import { startUpDecisionRefusal } from './stores/redis/redis-start-up-decision';

/**
 * Options of the connections the module creates itself. One retry per command bounds the
 * offline queue during an outage (storeTimeout bounds the wait anyway); commands issued
 * while the first connection is being set up are queued, so a reachable Redis decides
 * from the very first request. No auto-pipelining: RedisStore batches decisions itself.
 * TCP keepalive after 10 s idle: `keepAlive` is the delay before the first probe (Node's
 * `socket.setKeepAlive(true, delay)`), off by default in ioredis 5 and 30 s in ioredis 6, so
 * a connection to a host that vanished is found dead instead of waiting forever.
 */
const OWN_CLIENT_DEFAULTS: RedisOptions = {
  maxRetriesPerRequest: 1,
  enableAutoPipelining: false,
  keepAlive: 10_000,
};

/**
 * Always set on the connections the module creates: they connect with the first command,
 * which the module sends once the app has started (`onApplicationBootstrap`). An app whose
 * start-up fails before then (a template syntax error, another provider that throws) has
 * opened no socket, so a process that catches the error can still exit.
 */
const OWN_CLIENT_OVERRIDES: RedisOptions = { lazyConnect: true };

function isClient(value: unknown): value is Redis | Cluster {
  return typeof (value as { defineCommand?: unknown })?.defineCommand === 'function';
}

/**
 * A `redis` option written but empty (`redis: process.env.REDIS_ULR`, an unset variable): in
 * production, start-up stops rather than limit each process apart, unless `inMemory` says so.
 */
function memoryStore(options: RateLimiterModuleOptions, logger: Logger): MemoryStore {
  const empty = 'redis' in options;
  if (empty && !options.inMemory && process.env.NODE_ENV === 'production') {
    throw new LimiterConfigError(
      limiterMessages.emptyRedisInProduction('RateLimiterModule', String(options.redis)),
    );
  }
  if (!options.inMemory) {
    logger.warn(
      (empty ? `Option 'redis' is ${String(options.redis)}: ` : 'No redis configured: ') +
        'rate limits are kept in memory and apply per process. Pass { redis } to share them across servers.',
    );
  }
  return new MemoryStore();
}

/** Resolves `store` / `redis` / neither into the store, remembering whether we own the client. */
export function storeFromOptions(options: RateLimiterModuleOptions, logger: Logger): LimiterStore {
  const { redis, inMemory } = options;
  if (inMemory !== undefined && typeof inMemory !== 'boolean') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption('RateLimiterModule', 'inMemory', inMemory, 'a boolean'),
    );
  }
  if (options.store) return options.store;
  if (redis !== undefined && redis !== null && options.inMemory) {
    throw new LimiterConfigError(
      limiterMessages.conflictingOptions('RateLimiterModule', 'redis', 'inMemory'),
    );
  }
  if (redis === undefined || redis === null) return memoryStore(options, logger);
  const calls = options.redisCalls;
  if (isClient(redis)) return new RedisStore({ client: redis, calls });
  const client =
    typeof redis === 'string'
      ? new Redis(redis, { ...OWN_CLIENT_DEFAULTS, ...OWN_CLIENT_OVERRIDES })
      : new Redis({ ...OWN_CLIENT_DEFAULTS, ...redis, ...OWN_CLIENT_OVERRIDES });
  // Without a listener ioredis prints every failed reconnect; the store reports outages once.
  client.on('error', () => undefined);
  return new RedisStore({ client, ownsClient: true, calls });
}

/**
 * Fails start-up when the Redis connection cannot work (a wrong password, a database that
 * does not exist, a TLS mismatch, `maxclients` reached), or it can connect but not decide (a
 * read-only replica, an ACL user without the scripts' permissions), naming the option and the
 * cause: such a Redis would otherwise let every request through, logged as an outage. A PING,
 * then one real decision (a write), each on a connection beside the store's, closed at once
 * (for a client passed in, one with its options); an endpoint that is only unreachable lets
 * the app start. A Cluster client is not checked here.
 */
export async function checkRedisConnection(
  store: LimiterStore,
  options: RateLimiterModuleOptions,
): Promise<void> {
  const { redis } = options;
  if (!(store instanceof RedisStore) || redis === undefined || store.client.isCluster) return;
  const client = store.client as Redis;
  if (typeof client.duplicate !== 'function') return;
  const finding = await checkStartUpConnection(client);
  if (finding.kind === 'unreachable') return;
  const cause =
    finding.kind === 'misconfigured'
      ? finding.cause
      : await startUpDecisionRefusal(client, {
          keyPrefix: options.keyPrefix,
          calls: options.redisCalls,
        });
  if (cause === undefined) return;
  const shown =
    typeof redis === 'string' ? `'${withoutPassword(redis)}'` : describeEndpoint(client.options);
  throw new LimiterConfigError(
    limiterMessages.redisMisconfigured('RateLimiterModule', shown, cause),
  );
}

/**
 * The store as the guard and the module's factory use it: bounded in time, with the failure
 * policy. The module runs its start-up check once the app has started.
 */
export function failurePolicyStoreFromOptions(
  store: LimiterStore,
  options: RateLimiterModuleOptions,
  logger: Logger,
): FailurePolicyStore {
  const metrics = DecisionMetrics.fromOption(options.metrics);
  if (store instanceof RedisStore) store.observeEngineCalls(metrics?.recordStoreCall);
  const onDecision = bothListeners(options.onDecision, metrics?.record);
  return new FailurePolicyStore(
    store,
    options.onStoreError ?? 'allow',
    options.storeTimeout ?? DEFAULT_STORE_TIMEOUT_MS,
    logger,
    onDecision &&
      ((error, key, limit, name) =>
        onDecision({ outcome: 'store-error', limit, name, key, error })),
    onDecision,
    // Nobody hears an event while only the metrics listen, on the API's no-op provider.
    metrics && !options.onDecision ? () => metrics.idle : undefined,
  );
}

/** The user's `onDecision` then the metrics: what the guard and the factory report to. */
function bothListeners(
  user: DecisionListener | undefined,
  metrics: DecisionListener | undefined,
): DecisionListener | undefined {
  if (!user || !metrics) return user ?? metrics;
  return (event) => {
    metrics(event);
    user(event);
  };
}
