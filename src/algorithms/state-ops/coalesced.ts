import { basename } from 'node:path';
import { LimiterAlgorithm } from '../limiter-algorithm';
import { luaDefinitionsOf, luaInclude, luaNameOf } from '../lua-source';
import { blocksOf } from './block-lua';
import { StateType } from './state-ops.model';

/** The loop around an algorithm's coalesced function, with its blocks. */
const COALESCED = luaInclude(__dirname, 'coalesced.lua', 'coalesced_acquire');

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

/**
 * Each acquire that can decide n requests on one key at once, and the algorithm that does.
 * Kept apart from the acquire: an operation made by spreading the acquire (a peek) must not
 * inherit it.
 */
const coalescedAcquires = new WeakMap<object, AnyAlgorithm>();

/**
 * Gives `acquire` (an algorithm with blocks, blockable.ts) its coalesced form: the engine
 * runs n of its requests on one key as one entry, in `<folder>.coalesced.lua`'s function
 * (named after the algorithm: `count_limit_coalesced` for `countLimit`), which answers each
 * exactly as n entries in a row would (state-ops/coalesced.lua).
 */
export function coalesce<P, R, S>(
  acquire: LimiterAlgorithm<P, R, S>,
  name: string,
  folder: string,
  stateType: StateType,
): void {
  const decideAll = `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_coalesced`;
  const commandName = `${acquire.commandName}Coalesced`;
  coalescedAcquires.set(acquire, {
    ...acquire,
    commandName,
    luaName: commandName,
    luaIncludes: [
      ...luaDefinitionsOf(acquire),
      COALESCED,
      luaInclude(folder, `${basename(folder)}.coalesced.lua`, decideAll),
    ],
    lua: `return coalesced_acquire(${decideAll}, ${luaNameOf(acquire)}, ${blocksOf(stateType)}, key, now, argv)`,
  });
}

/** The algorithm that runs n requests of `algorithm` on one key at once, if it has one. */
export function coalescedAcquire(algorithm: object): AnyAlgorithm | undefined {
  return coalescedAcquires.get(algorithm);
}
