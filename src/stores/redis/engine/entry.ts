import type { DecisionGroup } from '../../../contracts/decision-group';

/** One decision waiting for the engine: its fields of the script's ARGV, and its callbacks. */
export interface EngineEntry {
  key: string;
  /** The algorithm's index in the engine script (engine/script.ts indexOf). */
  algorithmIndex: string;
  /** The time in µs, or '' for Redis TIME. */
  time: string;
  /** The limit's own fields, shared by its decisions. */
  fixed: FixedFields;
  requestArgv: readonly string[] | undefined;
  /** Both argvs packed (packing.ts), as the entry is added. */
  packedArgv?: string;
  /** `performance.now()` at the end of the entry's turn, if a call in flight held it then. */
  heldAtMs?: number;
  /** When its wait started (deadlines.ts): its send, or the end of its turn (heldAtMs). */
  waitFromMs?: number;
  /**
   * Whether its wait starts again when its call is written (deadlines.ts written): set as
   * it leaves the batcher, unless its wait started at the end of its turn; spent by the
   * first write, so a call sent again (per slot, after a refusal) does not restart it; a
   * decision Redis skipped leaves the batcher again (skipped-resend.ts) and is set anew.
   */
  waitsFromWrite?: boolean;
  /**
   * The caller's patience: how long after it is sent it waits for the answer; Infinity for
   * no limit. (Not a decision's `waitMs`, the wait a decision reserves.)
   */
  patienceMs: number;
  /**
   * When its caller stops waiting, as the caller said when the entry was sent (`sent`):
   * the deadline Redis gets, rather than `waitFromMs + patienceMs`.
   */
  untilMs?: number;
  /**
   * Told when the entry leaves for Redis (`performance.now()`), and again once its call is
   * first written to the socket (deadlines.ts written); false when its caller has stopped
   * waiting (it waited for a call in flight past its deadline): it is not sent.
   */
  sent?(sentAtMs: number): boolean;
  /** The request's other limits, decided all or nothing in one call where possible. */
  group?: DecisionGroup;
  /** How many decisions the entry answers: 1, or those it coalesced (coalescing.ts). */
  width?: number;
  /** The entry's reply: 5 values of `reply` from `base` (per decision, for a wider entry). */
  settle(reply: readonly unknown[], base: number): void;
  /** Answers an entry not sent: its group was denied locally after it was added. */
  withdraw(): void;
  fail(error: unknown): void;
}

/**
 * A limit's fields as the engine takes them, with its packings made once: a limit's params
 * give one of these, shared by its decisions (redis-decision.ts FixedArguments); packed by
 * packing.ts.
 */
export interface FixedFields {
  argv: readonly string[];
  /**
   * The algorithm's name and the arguments: the limit whatever object carries it (params
   * made per request give one of these per request).
   */
  limitId: string;
  /** The fields packed, each ended by NUL. */
  packedFields?: string;
  /** The whole packed argv of a request without fields of its own (the usual one). */
  packedAlone?: string;
  /**
   * The index of the algorithm that decides n of the limit's requests on one key as one
   * entry (coalescing.ts), if it has one.
   */
  coalescedIndex?: string;
}

/**
 * When an entry's caller stops waiting: what the caller said as the entry was sent, else
 * `patienceMs` from its wait's start. The caller's word wins because `patienceMs` was measured when
 * the decision reached the store: a GC pause or a preempted CPU between the caller's own
 * clock reading and then would shorten Redis's share again on every send, and Redis would
 * skip, as late, decisions whose callers still wait.
 */
export function waitsUntil(entry: EngineEntry, nowMs: number): number {
  return entry.untilMs ?? (entry.waitFromMs ?? nowMs) + entry.patienceMs;
}
