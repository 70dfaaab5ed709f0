/*
 * When an upstream's calls start: one token bucket, and a fair queue beside it
 * ===========================================================================
 *
 * Every server asks one shared book per upstream (a Redis hash; on the memory store a record
 * in the process) for the slots of the calls waiting on it: the calls of one turn of its
 * event loop in one ask, every tenant's in order. The book answers with a start time for each
 * call it can start within the horizon h (below), and for the others the time their first
 * call could start; the server waits for those times on its own, and asks again only when
 * that first call comes within h / 2. A call never asks twice for a slot it could not have.
 *
 * The bucket. With T = 1 / rate seconds a slot and C the capacity, the book keeps the
 * bucket's theoretical arrival time `tat` (the moment it would be full again). A call of cost
 * c may start at s when max(tat, s) + c * T - s <= C * T, and starting it moves `tat` to
 * max(tat, s) + c * T. Starts booked ahead count as already spent when a call asks for an
 * earlier moment: the check is conservative, and the starts the upstream sees keep to its
 * bucket whatever the order the servers asked in. Because of that, a start booked h ahead
 * takes h / T slots of the bucket's room, so h is at most (C - 1) * T / 2 (half the room
 * is left for the moment's calls), at least T, and at most 100 ms: a pause heard meanwhile
 * (a 429 with Retry-After) cannot stop a call already booked on another server, so the
 * horizon is also how long past a pause the calls of the fleet may still leave.
 *
 * The fair queue. An entry is one tenant on one server. An entry whose calls could not all
 * be booked is waiting: the book holds its weight until a little after its next ask is due,
 * and drops it as soon as an ask books all its calls, so an idle tenant holds nothing back.
 * With W the sum of the weights of the tenants waiting anywhere (each tenant's largest) and
 * n_t the entries of tenant t waiting, entry e of tenant t may start a call of cost c every
 *
 *   c * W * n_t / (rate * w_t)   seconds
 *
 * its tag (its next start by its share) moving on by that much with each call; a tag may
 * lag the clock by at most h, so an entry asking late catches up that much and no more
 * (no credit for an idle spell). A call starts at the later of its bucket time and its
 * entry's tag. The shares of the waiting entries add up to the rate, so while every entry
 * keeps to its tag the bucket is never the one to refuse, and each tenant gets its weight's
 * part of the starts whoever asks first. A lone entry (nothing else waiting) is not paced:
 * the bucket alone decides, bursts included.
 */

/** The book's fixed knobs, in microseconds. */
export const SLOTS = {
  maxHorizonMicros: 100_000,
  /** How long past its next ask a waiting entry's weight is held (a late server). */
  waitingGraceMicros: 1_000_000,
  /** How long an untouched book lives past its pause. */
  lifeMicros: 60_000_000,
} as const;

/** One tenant's calls on the asking server, first in first out. */
export interface SlotAsk {
  tenant: string;
  weight: number;
  /** Each call's cost and how long it may still wait (µs). */
  calls: ReadonlyArray<readonly [cost: number, maxWaitMicros: number]>;
}

export interface SlotRequest {
  rate: number;
  capacity: number;
  server: string;
  asks: readonly SlotAsk[];
}

/** What one ask is answered. */
interface SlotGrant {
  /** The start of each call booked, in µs from now (the first calls of the ask, in order). */
  starts: number[];
  /** When the first call not booked could start (µs from now); -1 when every call is booked. */
  nextMicros: number;
}

export interface SlotAnswer {
  /** > 0: the upstream asked for a pause, which lasts this long (µs); nothing is booked. */
  pausedMicros: number;
  /** The horizon h (µs): ask again when a call's start comes within h / 2. */
  horizonMicros: number;
  grants: SlotGrant[];
}

/** The book as the memory twin keeps it (upstream-slots.lua keeps the same in a hash). */
export interface SlotRecord {
  tat?: number;
  pauseUntil?: number;
  /** `server|tenant` -> its tag (µs). */
  tags: Map<string, number>;
  /** `server|tenant` -> [weight, held until µs]. */
  waiting: Map<string, [number, number]>;
}

export const horizonMicros = (rate: number, capacity: number): number => {
  const slot = 1_000_000 / rate;
  return Math.min(SLOTS.maxHorizonMicros, Math.max(slot, ((capacity - 1) * slot) / 2));
};

/** One ask answered at `now` (µs): the twin of upstream-slots.lua's take. */
export function takeSlots(record: SlotRecord, now: number, request: SlotRequest): SlotAnswer {
  const { rate, capacity, server, asks } = request;
  const slot = 1_000_000 / rate;
  const horizon = horizonMicros(rate, capacity);
  const pause = record.pauseUntil ?? 0;
  if (pause > now) {
    return { pausedMicros: pause - now, horizonMicros: horizon, grants: asks.map(notBooked) };
  }
  const weights = new Map<string, number>();
  const entries = new Map<string, number>();
  const count = (entry: string, weight: number) => {
    const tenant = entry.slice(entry.indexOf('|') + 1);
    weights.set(tenant, Math.max(weights.get(tenant) ?? 0, weight));
    entries.set(tenant, (entries.get(tenant) ?? 0) + 1);
  };
  let others = 0;
  for (const [entry, [weight, until]] of record.waiting) {
    if (until < now) {
      record.waiting.delete(entry);
      continue;
    }
    if (asks.some((ask) => entry === `${server}|${ask.tenant}`)) continue;
    count(entry, weight);
    others++;
  }
  for (const ask of asks) count(`${server}|${ask.tenant}`, ask.weight);
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const paced = others + asks.length > 1;

  let tat = record.tat ?? now - capacity * slot;
  const grants: SlotGrant[] = asks.map(() => ({ starts: [], nextMicros: -1 }));
  const open = asks.map(() => true);
  let progress = true;
  while (progress) {
    progress = false;
    asks.forEach((ask, at) => {
      const grant = grants[at];
      if (!open[at] || grant.starts.length >= ask.calls.length) return;
      const [cost, maxWait] = ask.calls[grant.starts.length];
      const entry = `${server}|${ask.tenant}`;
      const tag = Math.max(record.tags.get(entry) ?? now - horizon, now - horizon);
      const bucketAt = Math.max(now, tat + (cost - capacity) * slot);
      const start = paced ? Math.max(bucketAt, tag) : bucketAt;
      if (start - now > Math.min(horizon, maxWait)) {
        open[at] = false;
        grant.nextMicros = start - now;
        return;
      }
      tat = Math.max(tat, start) + cost * slot;
      const spacing = (total * entries.get(ask.tenant)!) / (rate * weights.get(ask.tenant)!);
      record.tags.set(entry, Math.max(tag, start - horizon) + cost * spacing * 1_000_000);
      grant.starts.push(Math.floor(start - now));
      progress = true;
    });
  }
  record.tat = tat;
  asks.forEach((ask, at) => {
    const entry = `${server}|${ask.tenant}`;
    const next = grants[at].nextMicros;
    if (next < 0) record.waiting.delete(entry);
    else record.waiting.set(entry, [ask.weight, now + next + SLOTS.waitingGraceMicros]);
    grants[at].nextMicros = next < 0 ? -1 : Math.floor(next);
  });
  for (const [entry, tag] of record.tags) if (tag < now - horizon) record.tags.delete(entry);
  return { pausedMicros: 0, horizonMicros: horizon, grants };
}

const notBooked = (): SlotGrant => ({ starts: [], nextMicros: -1 });

/** A booked slot not used goes back to the bucket. */
export function giveBackSlots(record: SlotRecord, cost: number, rate: number): void {
  // A moment far enough back is a full bucket: lower is the same.
  if (record.tat !== undefined) record.tat -= (cost * 1_000_000) / rate;
}

/** No call starts before `now + micros`. */
export function pauseSlots(record: SlotRecord, now: number, micros: number): void {
  record.pauseUntil = Math.max(record.pauseUntil ?? 0, now + micros);
}

/** The bucket holds no more than `left` slots (what the upstream says is left). */
export function capSlots(
  record: SlotRecord,
  now: number,
  left: number,
  bucket: { rate: number; capacity: number },
): void {
  const slot = 1_000_000 / bucket.rate;
  const tat = Math.max(record.tat ?? now - bucket.capacity * slot, now);
  const held = bucket.capacity - (tat - now) / slot;
  if (held > left) record.tat = now + (bucket.capacity - Math.max(0, left)) * slot;
}
