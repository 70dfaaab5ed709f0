import { DecisionGroup } from '../contracts/decision-group';

/**
 * A group being decided in memory: what each key held before its member ran, and which
 * members were allowed. JavaScript runs the members one after another without anything in
 * between (the guard requests them in one synchronous pass), so restoring the snapshots
 * of the allowed ones when the last member is denied is all or nothing.
 */
export class MemoryGroupRun<E> {
  private readonly before = new Map<string, E | undefined>();
  private readonly allowed: string[] = [];
  private denied = false;
  private seen = 0;

  constructor(readonly group: DecisionGroup) {}

  /** Records a member's key before it runs. */
  snapshot(key: string, entry: E | undefined): void {
    if (!this.before.has(key)) this.before.set(key, entry);
  }

  /**
   * Records a member's outcome; on the last one, returns what to restore (the allowed
   * members' snapshots, when any member was denied), and marks them undone.
   */
  decided(key: string, allowed: boolean): Map<string, E | undefined> | undefined {
    if (allowed) this.allowed.push(key);
    else this.denied = true;
    if (++this.seen < this.group.size) return undefined;
    if (!this.denied) return new Map();
    for (const member of this.allowed) this.group.undone.add(member);
    return new Map(this.allowed.map((k) => [k, this.before.get(k)]));
  }
}
