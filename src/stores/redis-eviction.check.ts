import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { limiterMessages } from '../rate-limiter.messages';

type ConfigReader = Pick<Redis, 'config'>;

/** Each master's `maxmemory` and policy: the first one that evicts, or undefined. */
async function evictingConfig(nodes: ConfigReader[]) {
  for (const node of nodes) {
    const [, maxmemory] = (await node.config('GET', 'maxmemory')) as string[];
    const [, policy] = (await node.config('GET', 'maxmemory-policy')) as string[];
    if (Number(maxmemory) > 0 && policy !== 'noeviction') return { maxmemory, policy };
  }
  return undefined;
}

/**
 * Logs one warning when the Redis (every master of a Cluster) may evict keys: evicted limit
 * state starts afresh and hands out permits early, silently. Runs once the client is first
 * ready and never delays start-up; a Redis that refuses `CONFIG` (managed services often
 * do) or is down is not reported, since nothing can be said about it.
 */
export function warnIfRedisEvicts(client: Redis | Cluster, logger: Logger): void {
  const check = async () => {
    try {
      const nodes: ConfigReader[] = client.isCluster
        ? (client as Cluster).nodes('master')
        : [client as Redis];
      const evicting = await evictingConfig(nodes);
      if (evicting) logger.warn(limiterMessages.evictingRedis(evicting.policy, evicting.maxmemory));
    } catch {
      // CONFIG renamed, refused by an ACL, or Redis away: no finding to report.
    }
  };
  if (client.status === 'ready') void check();
  else client.once('ready', () => void check());
}
