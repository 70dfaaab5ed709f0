import { EngineAlgorithm } from './engine-algorithm';
import { StateOps } from './state-ops/state-ops';
import { StateType } from './state-ops/state-ops.model';

type AnyAlgorithm = EngineAlgorithm<any, any, any>;

/**
 * One entry of the engine library's table, as an algorithm's definition gives it: which of
 * its Lua functions the entry runs, and around what (its role). The composer
 * (stores/redis/engine/compose-library.ts) writes the entry's Lua from it, and the store finds
 * the entry of an algorithm by its place among these: no name of a Lua function is made here.
 */
export interface LibraryEntry {
  readonly algorithm: AnyAlgorithm;
  /** What the entry runs: the acquire with blocks, an operation around it, or n acquires at once. */
  readonly role: 'acquire' | 'peek' | 'reset' | 'block' | 'refund' | 'charge' | 'coalesced';
  /** The algorithm's name: its folder, whose Lua files hold its functions. */
  readonly name: string;
  readonly stateType: StateType;
  /** The file of the function a refund or a charge runs (`<name>.refund.lua`, `.charge.lua`); none: the acquire's. */
  readonly file?: 'refund' | 'charge';
  /** The acquire keeps its block itself (slots): no blocks around it. */
  readonly keepsBlock?: boolean;
}

/** What an algorithm's entries are made of: its definition's facts and what it derived. */
interface EntrySource {
  name: string;
  stateType: StateType;
  acquire: AnyAlgorithm;
  ops: StateOps<any, any, any, any>;
  /** Set where the charge is the acquire's own function (the token bucket's, without a timeout). */
  chargeIsAcquire?: boolean;
  coalesced?: AnyAlgorithm;
  keepsBlock?: boolean;
}

/** The entries of one algorithm, in the order of its table: the acquire first. */
export function libraryEntries(source: EntrySource): LibraryEntry[] {
  const { name, stateType, ops, keepsBlock } = source;
  const entry = (
    algorithm: AnyAlgorithm | undefined,
    role: LibraryEntry['role'],
    file?: LibraryEntry['file'],
  ): LibraryEntry[] =>
    algorithm
      ? [{ algorithm, role, name, stateType, file, ...(keepsBlock && { keepsBlock }) }]
      : [];
  return [
    ...entry(source.acquire, 'acquire'),
    ...entry(ops.peek, 'peek'),
    ...entry(ops.reset, 'reset'),
    ...entry(ops.block, 'block'),
    ...entry(ops.refund, 'refund', 'refund'),
    ...entry(ops.charge, 'charge', source.chargeIsAcquire ? undefined : 'charge'),
    ...entry(source.coalesced, 'coalesced'),
  ];
}
