import { EngineAlgorithm } from './engine-algorithm';
import { StateOps } from './state-ops/state-ops';

type AnyAlgorithm = EngineAlgorithm<any, any, any>;

/**
 * One entry of the engine library's table, as an algorithm's definition gives it: the
 * algorithm the store sends, and its role. The Lua adds the same entries in the same order
 * (each algorithm's `<name>.entries.lua`, state-ops/entries.lua; a test holds the two equal),
 * and the store finds the entry of an algorithm by its place among these.
 */
export interface LibraryEntry {
  readonly algorithm: AnyAlgorithm;
  /** What the entry runs: the acquire with blocks, an operation around it, or n acquires at once. */
  readonly role: 'acquire' | 'peek' | 'reset' | 'block' | 'refund' | 'charge' | 'coalesced';
  /** The algorithm's name: its folder, whose entries file adds the entry. */
  readonly name: string;
}

/** What an algorithm's entries are made of. */
interface EntrySource {
  name: string;
  acquire: AnyAlgorithm;
  ops: StateOps<any, any, any, any>;
  coalesced?: AnyAlgorithm;
}

/** The entries of one algorithm, in the order of its table: the acquire first. */
export function libraryEntries(source: EntrySource): LibraryEntry[] {
  const { name, ops } = source;
  const entry = (algorithm: AnyAlgorithm | undefined, role: LibraryEntry['role']) =>
    algorithm ? [{ algorithm, role, name }] : [];
  return [
    ...entry(source.acquire, 'acquire'),
    ...entry(ops.peek, 'peek'),
    ...entry(ops.reset, 'reset'),
    ...entry(ops.block, 'block'),
    ...entry(ops.refund, 'refund'),
    ...entry(ops.charge, 'charge'),
    ...entry(source.coalesced, 'coalesced'),
  ];
}
