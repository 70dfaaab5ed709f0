import type { Cluster, Redis } from 'ioredis';
import { DENIAL_MINUTES_KEPT } from './admin.options';
import { MinuteCounts } from './minute-counts';

/** A limit as events name it: `limit` is `@CountLimit on AuthController.login`, `name` its name. */
export interface LimitRef {
  limit: string;
  name: string;
}

/** One key's denials in the last minutes. */
export interface DeniedKey extends LimitRef {
  key: string;
  count: number;
}

/** A key whose last denial said "retry after": a candidate for the blocked list. */
interface DeniedUntil extends LimitRef {
  key: string;
  untilMs: number;
}

/** Denials counted since the last flush, by member, for one minute. */
interface DenialBatch {
  minute: number;
  counts: ReadonlyMap<string, number>;
  /** The end of each member's last retry time (epoch ms). */
  untilMs: ReadonlyMap<string, number>;
}

/** Where denial counts live: Redis, so every server's denials show on every server, or memory. */
export interface DenialLog {
  add(batch: DenialBatch): Promise<void>;
  /** The most denied keys of the last `minutes` minutes, most first. */
  top(minutes: number, nowMs: number, max: number): Promise<DeniedKey[]>;
  /** Keys whose last denial's retry time has not passed, latest first. */
  deniedUntil(nowMs: number, max: number): Promise<DeniedUntil[]>;
  /** Drops a key from the candidates (after a reset). */
  forget(member: string): Promise<void>;
}

/** A member names the limit and the key: the same key under two limits is two rows. */
export const memberOf = (ref: LimitRef, key: string) => JSON.stringify([ref.limit, ref.name, key]);

function parseMember(member: string): (LimitRef & { key: string }) | undefined {
  try {
    const [limit, name, key] = JSON.parse(member) as unknown[];
    if (typeof limit === 'string' && typeof name === 'string' && typeof key === 'string') {
      return { limit, name, key };
    }
  } catch {
    // a member someone else wrote: ignored
  }
  return undefined;
}

export const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** Candidates kept for the blocked list; the oldest go first. */
const UNTIL_KEPT = 1000;
/** Rows read per minute for `top`: counts below a minute's 200th are not shown anyway. */
const READ_PER_MINUTE = 200;
/** Members the memory log keeps per minute: enough above the rows read to rank them fairly. */
const KEPT_PER_MINUTE = 5 * READ_PER_MINUTE;

/** Counts in per-minute sorted sets (`ZINCRBY`) that expire after {@link DENIAL_MINUTES_KEPT}. */
export class RedisDenialLog implements DenialLog {
  private readonly untilKey: string;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly keyPrefix: string,
  ) {
    this.untilKey = `${keyPrefix}admin:denied-until`;
  }

  private minuteKey = (minute: number) => `${this.keyPrefix}admin:denied:${minute}`;

  async add({ minute, counts, untilMs }: DenialBatch): Promise<void> {
    const key = this.minuteKey(minute);
    const writes: Promise<unknown>[] = [];
    for (const [member, count] of counts) writes.push(this.client.zincrby(key, count, member));
    writes.push(this.client.pexpire(key, (DENIAL_MINUTES_KEPT + 1) * 60_000));
    for (const [member, until] of untilMs)
      writes.push(this.client.zadd(this.untilKey, until, member));
    writes.push(this.client.zremrangebyscore(this.untilKey, '-inf', Date.now()));
    writes.push(this.client.zremrangebyrank(this.untilKey, 0, -UNTIL_KEPT - 1));
    await Promise.all(writes);
  }

  async top(minutes: number, nowMs: number, max: number): Promise<DeniedKey[]> {
    const last = minuteOf(nowMs);
    const replies = await Promise.all(
      Array.from({ length: minutes }, (_, i) =>
        this.client.zrevrange(this.minuteKey(last - i), 0, READ_PER_MINUTE - 1, 'WITHSCORES'),
      ),
    );
    const counts = new Map<string, number>();
    for (const reply of replies) {
      for (let i = 0; i < reply.length; i += 2) {
        counts.set(reply[i], (counts.get(reply[i]) ?? 0) + Number(reply[i + 1]));
      }
    }
    return ranked(counts, max);
  }

  async deniedUntil(nowMs: number, max: number): Promise<DeniedUntil[]> {
    const reply = await this.client.zrevrangebyscore(
      this.untilKey,
      '+inf',
      `(${nowMs}`,
      'WITHSCORES',
      'LIMIT',
      0,
      max,
    );
    const rows: DeniedUntil[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const ref = parseMember(reply[i]);
      if (ref) rows.push({ ...ref, untilMs: Number(reply[i + 1]) });
    }
    return rows;
  }

  async forget(member: string): Promise<void> {
    await this.client.zrem(this.untilKey, member);
  }
}

/** The same in one process, for the in-memory store, bounded the same way (MinuteCounts). */
export class MemoryDenialLog implements DenialLog {
  private readonly minutes = new Map<number, MinuteCounts>();
  private readonly untilMs = new Map<string, number>();

  async add(batch: DenialBatch): Promise<void> {
    let counts = this.minutes.get(batch.minute);
    if (!counts) this.minutes.set(batch.minute, (counts = new MinuteCounts(KEPT_PER_MINUTE)));
    for (const [member, count] of batch.counts) counts.add(member, count);
    for (const minute of this.minutes.keys()) {
      if (minute <= batch.minute - DENIAL_MINUTES_KEPT) this.minutes.delete(minute);
    }
    for (const [member, until] of batch.untilMs) {
      this.untilMs.delete(member); // re-inserted last: the map stays in write order
      this.untilMs.set(member, until);
    }
    const now = Date.now();
    for (const [member, until] of this.untilMs) {
      if (until <= now || this.untilMs.size > UNTIL_KEPT) this.untilMs.delete(member);
    }
  }

  async top(minutes: number, nowMs: number, max: number): Promise<DeniedKey[]> {
    const last = minuteOf(nowMs);
    const counts = new Map<string, number>();
    for (const [minute, perMinute] of this.minutes) {
      if (minute <= last - minutes) continue;
      // As the Redis log reads them: a minute's first rows, not every member it saw.
      for (const [member, count] of perMinute.top(READ_PER_MINUTE))
        counts.set(member, (counts.get(member) ?? 0) + count);
    }
    return ranked(counts, max);
  }

  async deniedUntil(nowMs: number, max: number): Promise<DeniedUntil[]> {
    const rows: DeniedUntil[] = [];
    for (const [member, untilMs] of this.untilMs) {
      const ref = parseMember(member);
      if (ref && untilMs > nowMs) rows.push({ ...ref, untilMs });
    }
    return rows.sort((a, b) => b.untilMs - a.untilMs).slice(0, max);
  }

  async forget(member: string): Promise<void> {
    this.untilMs.delete(member);
  }
}

function ranked(counts: Map<string, number>, max: number): DeniedKey[] {
  const rows: DeniedKey[] = [];
  for (const [member, count] of counts) {
    const ref = parseMember(member);
    if (ref) rows.push({ ...ref, count });
  }
  rows.sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  return rows.slice(0, max);
}
