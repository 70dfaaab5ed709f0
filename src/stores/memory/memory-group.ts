import { DecisionGroup } from '../../contracts/decision-group';

/**
 * A group being decided in memory: what each key held before its member ran, and which
 * members were allowed. JavaScript runs the members one after another without anything in
 * between (the guard requests them in one synchronous pass), so restoring the snapshots
 * of the allowed ones when the last member is denied is all or nothing.
 */
export class MemoryGroupRun<E> {
  private readonly before = new Map<string, E | undefined>();
  private readonly allowed: string[] = [];
  private readonly undos: (() => void)[] = [];
  private denied = false;
  private seen = 0;

  constructor(readonly group: DecisionGroup) {}

  /** Records a member's key before it runs. */
  snapshot(key: string, entry: E | undefined): void {
    if (!this.before.has(key)) this.before.set(key, entry);
  }

  /**
   * Records a member's outcome, and `undo`, what its step wrote beside its key's state; on
   * the last one, returns what to restore (the allowed members' snapshots, when any member
   * was denied, and their undos), and marks them undone.
   */
  decided(key: string, allowed: boolean, undo?: () => void): MemoryGroupUndo<E> | undefined {
    if (allowed) {
      this.allowed.push(key);
      if (undo) this.undos.push(undo);
    } else this.denied = true;
    if (++this.seen < this.group.size) return undefined;
    if (!this.denied) return { entries: new Map(), undos: [] };
    for (const member of this.allowed) this.group.undone.add(member);
    return {
      entries: new Map(this.allowed.map((k) => [k, this.before.get(k)])),
      undos: this.undos,
    };
  }
}

/** What a denied group gives back: each allowed key's entry before it ran, and its undos. */
interface MemoryGroupUndo<E> {
  entries: Map<string, E | undefined>;
  undos: (() => void)[];
}
