import type { EngineEntry } from './entry';
import { StoreUnavailableError } from '../../../errors/store-unavailable.error';
import { refusedEntries } from './call-mode';
import { decisionsOf, perDecision, replyBases } from './coalescing';
import { unpackReply } from './packing';
import { RedisClock } from './redis-clock';
import { SkippedResend } from './skipped-resend';

/**
 * Answers each entry of an engine call from the call's reply (unpacked; a coalesced entry's
 * decisions each from its own values), or fails them all; keeps Redis's clock and when Redis
 * last answered.
 */
export class EngineReplies {
  readonly clock = new RedisClock();
  /** `performance.now()` of the last reply Redis gave, even an error reply. */
  lastReplyAtMs = -Infinity;
  /** Sends again the entries Redis skipped as late, once. */
  private readonly skipped: SkippedResend;

  /** `resend`: queues an entry Redis skipped again; `last` closes the batch. */
  constructor(resend: (entry: EngineEntry, last: boolean) => void) {
    this.skipped = new SkippedResend(resend);
  }

  /**
   * `starts`: the groups decided together (groups.ts groupStarts); `except`: entries
   * to leave unsettled (sent again).
   */
  settle(
    entries: EngineEntry[],
    packed: unknown,
    starts?: Map<number, number>,
    except?: ReadonlyMap<number, string>,
  ): void {
    const receivedAt = this.clock.localMs();
    this.lastReplyAtMs = receivedAt;
    const reply = unpackReply(perDecision(packed, entries), decisionsOf(entries));
    if (!reply) {
      const error = new StoreUnavailableError(`Unexpected reply from the engine script`);
      return this.fail(entries, error);
    }
    this.clock.sample(Number(reply[0]), receivedAt);
    const bases = replyBases(entries);
    if (starts?.size) markUndone(entries, reply, bases, starts);
    this.skipped.settle(entries, reply, bases, except);
  }

  /** Fails every entry; an error reply (NOPERM...) still proves that Redis answers. */
  fail(entries: readonly EngineEntry[], error: unknown): void {
    if ((error as Error | undefined)?.name === 'ReplyError') {
      this.lastReplyAtMs = this.clock.localMs();
    }
    for (const entry of entries) entry.fail(error);
  }
}

/**
 * A group with a denied member had its allowed members undone by the script: each such
 * member's key is marked undone in its group. `starts`: where each group decided together
 * starts in `entries`, and its size (groups.ts); `bases`: each entry's first value.
 */
function markUndone(
  entries: readonly EngineEntry[],
  reply: readonly unknown[],
  bases: readonly number[],
  starts: ReadonlyMap<number, number>,
): void {
  starts.forEach((size, first) => {
    const members = Array.from({ length: size }, (_, j) => first + j);
    if (!members.some((i) => Number(reply[bases[i]]) === 0)) return;
    for (const i of members) {
      if (Number(reply[bases[i]]) === 1) entries[i].group!.undone.add(entries[i].key);
    }
  });
}

/**
 * The entries (by index) whose decisions failed because the endpoint refused a key they
 * touch, with the message; a coalesced entry's decisions fail together.
 */
export function refusedIn(entries: EngineEntry[], reply: unknown): Map<number, string> | undefined {
  const byDecision = refusedEntries(perDecision(reply, entries), decisionsOf(entries));
  if (!byDecision) return undefined;
  const bases = replyBases(entries);
  const refused = new Map<number, string>();
  entries.forEach((_, i) => {
    const message = byDecision.get((bases[i] - 1) / 5);
    if (message !== undefined) refused.set(i, message);
  });
  return refused.size > 0 ? refused : undefined;
}
