import { EngineEntry, FixedFields, waitsUntil } from './entry';
import { packArgv } from './packing';

/**
 * A hot key's decisions of one call as one entry: n requests of one limit (the same
 * parameters) on one key at the same time become an entry of the limit's coalesced
 * algorithm (algorithms/state-ops/coalesced.ts), which answers each exactly as n entries in
 * a row would, with one read and one write of the key. An entry joins the previous entry on
 * its key only: another limit's entry or an operation on the key in between (a peek, a
 * refund) keeps its place, so every key sees its entries in their order. Group members (all
 * or nothing) are never coalesced.
 */
export function coalesced(entries: EngineEntry[]): EngineEntry[] {
  if (!entries.some((entry) => entry.fixed.coalescedIndex !== undefined)) return entries;
  /** Per key, its last entry, or the first of the run that entry joined. */
  const lastOnKey = new Map<string, EngineEntry>();
  const runs = new Map<EngineEntry, EngineEntry[]>();
  const joined = new Set<EngineEntry>();
  for (const entry of entries) {
    const previous = lastOnKey.get(entry.key);
    if (previous && joins(previous, entry)) {
      const run = runs.get(previous);
      if (run) run.push(entry);
      else runs.set(previous, [previous, entry]);
      joined.add(entry);
    } else {
      lastOnKey.set(entry.key, entry);
    }
  }
  if (runs.size === 0) return entries;
  const sent: EngineEntry[] = [];
  for (const entry of entries) {
    const run = runs.get(entry);
    if (run) sent.push(new CoalescedEntry(run));
    // A later member answers through its run's entry.
    else if (!joined.has(entry)) sent.push(entry);
  }
  return sent;
}

/**
 * Whether `entry` may be decided with `previous`, the last entry before it on its key: the
 * same limit (one FixedFields object per limit and algorithm, or, for params made per
 * request, the same arguments), the same time (an injected clock may move between entries
 * of one call), and neither in a group.
 */
function joins(previous: EngineEntry, entry: EngineEntry): boolean {
  return (
    (previous.fixed === entry.fixed || previous.fixed.limitId === entry.fixed.limitId) &&
    entry.fixed.coalescedIndex !== undefined &&
    previous.time === entry.time &&
    !previous.group &&
    !entry.group
  );
}

/** n decisions sent as one entry: its reply holds each one's 5 values, in their order. */
class CoalescedEntry implements EngineEntry {
  readonly key: string;
  readonly algorithmIndex: string;
  readonly time: string;
  readonly fixed: FixedFields;
  readonly requestArgv: readonly string[];
  readonly packedArgv: string;
  readonly width: number;
  /** The earliest deadline of its members (deadlines.ts callArgs reads from + patience). */
  readonly waitFromMs: number;
  readonly patienceMs = 0;

  constructor(readonly members: readonly EngineEntry[]) {
    const first = members[0];
    this.key = first.key;
    this.time = first.time;
    this.fixed = first.fixed;
    this.algorithmIndex = first.fixed.coalescedIndex!;
    this.width = members.length;
    // coalesced.lua: per request the count of its fields and its fields, then n, then the
    // count of the limit's own fields.
    const argv: string[] = [];
    let until = Infinity;
    for (const member of members) {
      const fields = member.requestArgv ?? [];
      argv.push(String(fields.length), ...fields);
      until = Math.min(until, waitsUntil(member, 0));
    }
    argv.push(String(members.length), String(first.fixed.argv.length));
    this.requestArgv = argv;
    this.packedArgv = packArgv(first.fixed, argv);
    this.waitFromMs = until;
  }

  settle(reply: readonly unknown[], base: number): void {
    for (let i = 0; i < this.members.length; i++) this.members[i].settle(reply, base + 5 * i);
  }

  withdraw(): void {
    for (const member of this.members) member.withdraw();
  }

  fail(error: unknown): void {
    for (const member of this.members) member.fail(error);
  }
}

/** The decisions an entry sent stands for: a coalesced entry's members, else the entry. */
export function decisionEntries(entry: EngineEntry): readonly EngineEntry[] {
  return entry instanceof CoalescedEntry ? entry.members : [entry];
}

/**
 * Where each entry's values start in the unpacked reply (packing.ts): after the Redis
 * time, 5 per decision, a coalesced entry's n decisions one after another.
 */
export function replyBases(entries: readonly EngineEntry[]): number[] {
  const bases: number[] = new Array<number>(entries.length);
  let base = 1;
  for (let i = 0; i < entries.length; i++) {
    bases[i] = base;
    base += 5 * (entries[i].width ?? 1);
  }
  return bases;
}

/** How many decisions `entries` answer. */
export function decisionsOf(entries: readonly EngineEntry[]): number {
  let decisions = 0;
  for (const entry of entries) decisions += entry.width ?? 1;
  return decisions;
}

/**
 * The engine's packed reply with one field per decision: an entry the engine skipped (past
 * its deadline, `-1`) or failed (`-2,<message>`) answers one field, which a coalesced entry's
 * every decision then reads. The reply as it came when no entry is coalesced.
 */
export function perDecision(reply: unknown, entries: readonly EngineEntry[]): unknown {
  if (typeof reply !== 'string' || !entries.some((entry) => (entry.width ?? 1) > 1)) {
    return reply;
  }
  // The time first: TIME's seconds and µs, two fields.
  let stop = reply.indexOf('\0', reply.indexOf('\0') + 1);
  let expanded = reply.slice(0, stop + 1);
  for (const entry of entries) {
    const width = entry.width ?? 1;
    const start = stop + 1;
    stop = reply.indexOf('\0', start);
    if (stop < 0) return reply;
    const field = reply.slice(start, stop + 1);
    if (width > 1 && (field.startsWith('-1,') || field.startsWith('-2,'))) {
      expanded += field.repeat(width);
      continue;
    }
    for (let i = 1; i < width && stop >= 0; i++) stop = reply.indexOf('\0', stop + 1);
    if (stop < 0) return reply;
    expanded += reply.slice(start, stop + 1);
  }
  return expanded + reply.slice(stop + 1);
}
