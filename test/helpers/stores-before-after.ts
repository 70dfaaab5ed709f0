import { LimiterStore, MemoryStore, RedisStore } from '../../src';
import { RedisServer } from './redis-server';

/**
 * An app before and after a correction of its options, on the same state: on Redis two stores
 * (a restart), in memory one store whose limits change while it runs. `limitsOn` makes what a
 * test decides with from a store; `server` and `now` are read when a test asks.
 */
export function storesBeforeAndAfter<T>(
  server: () => RedisServer,
  now: () => number,
  limitsOn: (store: LimiterStore) => T,
): [string, () => [T, T]][] {
  return [
    [
      'RedisStore',
      () => [
        limitsOn(new RedisStore({ client: server().client(), now })),
        limitsOn(new RedisStore({ client: server().client(), now })),
      ],
    ],
    [
      'MemoryStore',
      () => {
        const limits = limitsOn(new MemoryStore({ now }));
        return [limits, limits];
      },
    ],
  ];
}
