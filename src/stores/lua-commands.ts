import type { Cluster, Redis } from 'ioredis';
import { BUILT_IN_ALGORITHMS } from '../algorithms/built-in-algorithms';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { standaloneScript } from './standalone-script';

/** The shape of a command ioredis creates with `defineCommand`: one key, then ARGV. */
export type LimiterCommand = (key: string, ...argv: string[]) => Promise<unknown>;

type CommandTable = Record<string, LimiterCommand | undefined>;

function define(
  client: Redis | Cluster,
  algorithm: LimiterAlgorithm<unknown, unknown, unknown>,
): void {
  if (typeof (client as unknown as CommandTable)[algorithm.commandName] !== 'function') {
    client.defineCommand(algorithm.commandName, {
      numberOfKeys: 1,
      lua: standaloneScript(algorithm.lua),
    });
  }
}

/**
 * Defines every built-in script as an ioredis command. ioredis then sends EVALSHA and
 * falls back to EVAL once on NOSCRIPT (a restarted Redis, SCRIPT FLUSH, a new cluster
 * node), per connection.
 */
export function defineBuiltInCommands(client: Redis | Cluster): void {
  for (const algorithm of BUILT_IN_ALGORITHMS) define(client, algorithm);
}

/**
 * The algorithm's command on this client. A custom algorithm is defined on first use and
 * its first call waits one turn of the event loop, so that it is not queued into an
 * auto-pipeline created before the command existed.
 */
export async function limiterCommand(
  client: Redis | Cluster,
  algorithm: LimiterAlgorithm<unknown, unknown, unknown>,
): Promise<LimiterCommand> {
  const commands = client as unknown as CommandTable;
  if (typeof commands[algorithm.commandName] !== 'function') {
    define(client, algorithm);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return commands[algorithm.commandName] as LimiterCommand;
}
