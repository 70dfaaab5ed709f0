import { LibraryEntry } from './library-entries';
import { EngineAlgorithm } from './engine-algorithm';
import { LIMIT_KINDS } from './registry';

/**
 * The engine library's table, entry by entry: each kind's acquire, its operations and its
 * coalesced form, in the registry's order. The composer writes the table's Lua from it
 * (stores/redis/engine/compose-library.ts) and the store finds an algorithm's entry by its
 * place in it.
 */
export const LIBRARY_ENTRIES: readonly LibraryEntry[] = LIMIT_KINDS.flatMap((kind) => kind.library);

/**
 * Every algorithm the decorators use, in the order of the library's table; its script form,
 * for Redis without Functions, is defined when the store is created, since an ioredis
 * auto-pipeline copies the client's commands when it starts.
 */
export const BUILT_IN_ALGORITHMS: readonly EngineAlgorithm<any, any, any>[] = LIBRARY_ENTRIES.map(
  (entry) => entry.algorithm,
);
