import type { EngineEntry } from './entry';
import { decisionEntries } from './coalescing';

/** An entry's first value when the engine skipped it past the batch's deadline (engine.lua). */
const SKIPPED = -1;

/**
 * Entries Redis skipped because it ran them past their deadline (Redis's clock): Redis was
 * late, yet it answered, and the app read that answer before it judged its callers'
 * deadlines (a starved CPU delays both alike). Those whose callers still wait go again at
 * once, their wait counting from this send (deadlines.ts startWaits); the others fail
 * there, unsent. Once each: a Redis late twice in a row is left to the store-error policy.
 * What goes again is each decision, not the entry it was sent in: decisions of a hot key
 * sent again are coalesced into a new entry, which must not count as a first send.
 */
export class SkippedResend {
  /** Entries sent again after Redis skipped them as late: never a third time. */
  private readonly sentAgain = new WeakSet<EngineEntry>();

  /** `add`: queues an entry on its connection's batcher; `last` closes the batch. */
  constructor(private readonly add: (entry: EngineEntry, last: boolean) => void) {}

  /**
   * Settles each entry with its reply from `bases[i]`, but those Redis skipped, sent again,
   * and those of `except` (left unsettled: sent again by the caller).
   */
  settle(
    entries: readonly EngineEntry[],
    reply: readonly unknown[],
    bases: readonly number[],
    except?: ReadonlyMap<number, string>,
  ): void {
    let skipped: EngineEntry[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      if (except?.has(i)) continue;
      const entry = entries[i];
      if (Number(reply[bases[i]]) === SKIPPED && !this.wasSentAgain(entry)) {
        (skipped ??= []).push(...decisionEntries(entry));
      } else entry.settle(reply, bases[i]);
    }
    if (skipped) this.sendAgain(skipped);
  }

  private wasSentAgain(entry: EngineEntry): boolean {
    return decisionEntries(entry).some((decision) => this.sentAgain.has(decision));
  }

  private sendAgain(entries: EngineEntry[]): void {
    entries.forEach((entry, i) => {
      this.sentAgain.add(entry);
      entry.heldAtMs = undefined;
      // A group's members were skipped together: they go again together.
      const last = !entry.group || entries[i + 1]?.group !== entry.group;
      this.add(entry, last);
    });
  }
}
