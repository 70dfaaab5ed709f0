import { EngineEntry, waitsUntil } from './entry';
import type { DecisionGroup } from '../../../contracts/decision-group';
import { StoreUnavailableError } from '../../../errors/store-unavailable.error';
import { decisionEntries } from './coalescing';
import { packEntries } from './packing';
import { RedisClock } from './redis-clock';

/**
 * Tells each entry it is sent: its caller's wait starts, and so does its deadline. The wait
 * of an entry held behind calls in flight started at the end of its turn, unless Redis has
 * answered since (`lastReplyAtMs`; then the calls it waited for were Redis at work, not
 * Redis silent: the wait starts now, as a busy app's own delays never count). An entry whose
 * caller stopped waiting is failed instead, with the rest of its group, and changes nothing.
 * Returns the entries still wanted.
 */
export function startWaits(
  entries: EngineEntry[],
  nowMs: number,
  lastReplyAtMs: number,
): EngineEntry[] {
  let late: Set<EngineEntry | DecisionGroup> | undefined;
  for (const entry of entries) {
    const held = entry.heldAtMs;
    const silent = held !== undefined && lastReplyAtMs < held;
    const fromMs = silent ? held : nowMs;
    entry.waitFromMs = fromMs;
    entry.waitsFromWrite = !silent;
    if (entry.sent && !entry.sent(fromMs)) (late ??= new Set()).add(entry.group ?? entry);
  }
  if (!late) return entries;
  const error = new StoreUnavailableError('the decision waited past its deadline: not sent');
  return entries.filter((entry) => {
    if (!late.has(entry.group ?? entry)) return true;
    entry.fail(error);
    return false;
  });
}

/**
 * KEYS, then the batch's deadline, then its entries packed in one string (engine.lua's
 * header). The deadline is the earliest of the callers': each one's wait started as its
 * entry was sent or held (startWaits).
 */
export function callArgs(
  entries: EngineEntry[],
  clock: RedisClock,
  starts = new Map<number, number>(),
): string[] {
  const args: string[] = [String(entries.length)];
  const nowMs = clock.localMs();
  let deadlineMs = Infinity;
  for (const entry of entries) {
    args.push(entry.key);
    const until = waitsUntil(entry, nowMs);
    if (until < deadlineMs) deadlineMs = until;
  }
  args.push(clock.deadline(deadlineMs), packEntries(entries, starts));
  return args;
}

/**
 * Tells each decision of `entries` the moment its call was first written to the socket
 * (ioredis writes at once): its caller waits from then. The deadline Redis got was set from
 * the moment before (startWaits), so it never comes later than the caller's; a CPU lost
 * between the two is the app's, and never makes a caller give up on an answer Redis is
 * still in time for. Once per leaving of the batcher, and never for a decision whose wait
 * started at the end of its turn (held behind a silent Redis): a call sent again after it
 * (per slot, the library reloaded) does not restart the wait, and a wait that was Redis's
 * silence is never given again. Only a decision Redis skipped as late goes through the
 * batcher once more (skipped-resend.ts), and then waits a storeTimeout of its own, once.
 */
export function written(entries: readonly EngineEntry[], atMs: number): void {
  for (const entry of entries) {
    // A coalesced entry has no hook of its own: its members each have theirs.
    if (entry.width === undefined) writtenOne(entry, atMs);
    else for (const decision of decisionEntries(entry)) writtenOne(decision, atMs);
  }
}

function writtenOne(decision: EngineEntry, atMs: number): void {
  if (!decision.waitsFromWrite) return;
  decision.waitsFromWrite = false;
  decision.sent?.(atMs);
}
