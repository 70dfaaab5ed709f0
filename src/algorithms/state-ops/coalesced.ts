import { EngineAlgorithm } from '../engine-algorithm';

type AnyAlgorithm = EngineAlgorithm<any, any, any>;

/**
 * Each acquire that can decide n requests on one key at once, and the algorithm that does.
 * Kept apart from the acquire: an operation made by spreading the acquire (a peek) must not
 * inherit it.
 */
const coalescedAcquires = new WeakMap<object, AnyAlgorithm>();

/**
 * Gives `acquire` (an algorithm with blocks, blockable.ts) its coalesced form: the engine
 * runs n of its requests on one key as one entry, in the library's coalesced_of (coalesced.lua:
 * the acquire run n times against a write-back cell on the key, a string's or a log's), which
 * answers each exactly as n entries in a row would.
 */
export function coalesce<P, R, S>(acquire: EngineAlgorithm<P, R, S>): void {
  const commandName = `${acquire.commandName}Coalesced`;
  coalescedAcquires.set(acquire, { ...acquire, commandName });
}

/** The algorithm that runs n requests of `algorithm` on one key at once, if it has one. */
export function coalescedAcquire(algorithm: object): AnyAlgorithm | undefined {
  return coalescedAcquires.get(algorithm);
}
