import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { limiterMessages } from '../../rate-limiter.messages';

type ConfigReader = Pick<Redis, 'config' | 'info'>;

/**
 * A node's `maxmemory` and policy: from CONFIG, or where CONFIG is refused (managed services
 * rename or forbid it) from `INFO memory`, which says the same.
 */
async function memoryConfig(node: ConfigReader): Promise<{ maxmemory: string; policy: string }> {
  try {
    const [, maxmemory] = (await node.config('GET', 'maxmemory')) as string[];
    const [, policy] = (await node.config('GET', 'maxmemory-policy')) as string[];
    return { maxmemory, policy };
  } catch {
    const info = await node.info('memory');
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1].trim();
    return { maxmemory: field('maxmemory') ?? '0', policy: field('maxmemory_policy') ?? '' };
  }
}

/** Each master's `maxmemory` and policy: the first one that evicts, or undefined. */
async function evictingConfig(nodes: ConfigReader[]) {
  for (const node of nodes) {
    const { maxmemory, policy } = await memoryConfig(node);
    if (Number(maxmemory) > 0 && policy !== '' && policy !== 'noeviction') {
      return { maxmemory, policy };
    }
  }
  return undefined;
}

/**
 * Logs one warning when the Redis (every master of a Cluster) may evict keys: evicted limit
 * state starts afresh and hands out permits early, silently. Runs once the client is first
 * ready and never delays start-up; a Redis that refuses both `CONFIG` and `INFO`, or is
 * down, is not reported, since nothing can be said about it.
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
      // CONFIG and INFO refused, or Redis away: no finding to report.
    }
  };
  if (client.status === 'ready') void check();
  else client.once('ready', () => void check());
}
