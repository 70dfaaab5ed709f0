import type { Cluster, Redis } from 'ioredis';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';

/** The shape of a command ioredis creates with `defineCommand`: one key, then ARGV. */
export type LimiterCommand = (key: string, ...argv: string[]) => Promise<unknown>;

/**
 * Returns the algorithm's script as an ioredis command on this client, defining it on
 * first use. ioredis then sends EVALSHA and falls back to EVAL once on NOSCRIPT (a
 * restarted Redis, SCRIPT FLUSH, a new cluster node), per connection.
 */
export function limiterCommand(
  client: Redis | Cluster,
  algorithm: LimiterAlgorithm<unknown, unknown, unknown>,
): LimiterCommand {
  const commands = client as unknown as Record<string, LimiterCommand | undefined>;
  let command = commands[algorithm.commandName];
  if (typeof command !== 'function') {
    client.defineCommand(algorithm.commandName, { numberOfKeys: 1, lua: algorithm.lua });
    command = commands[algorithm.commandName] as LimiterCommand;
  }
  return command;
}
