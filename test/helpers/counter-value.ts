import Redis, { Cluster } from 'ioredis';

/**
 * A fixed-window counter's count as Redis holds it: the value is `<count> <window end in µs>`
 * (fixed-window.window.lua), or a plain integer written before the end was kept.
 */
export async function counterValue(client: Redis | Cluster, key: string): Promise<string | null> {
  const value = await client.get(key);
  return value === null ? null : value.split(' ')[0];
}
