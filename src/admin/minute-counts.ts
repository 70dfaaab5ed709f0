/**
 * One minute's denial counts by member, in bounded memory: past twice `kept` members, only
 * the `kept` most denied stay. A flood of distinct keys (each denied once) then costs a
 * bounded map and an occasional sort, and a key denied again and again still rises to the
 * top. The Redis log is bounded alike where it is read: `top` reads a minute's first rows.
 */
export class MinuteCounts {
  private readonly counts = new Map<string, number>();

  constructor(private readonly kept: number) {}

  add(member: string, count: number): void {
    this.counts.set(member, (this.counts.get(member) ?? 0) + count);
    if (this.counts.size > 2 * this.kept) {
      const kept = this.top(this.kept);
      this.counts.clear();
      for (const [keptMember, keptCount] of kept) this.counts.set(keptMember, keptCount);
    }
  }

  /** The `max` most denied members, most first. */
  top(max: number): [string, number][] {
    return [...this.counts].sort((a, b) => b[1] - a[1]).slice(0, max);
  }
}
