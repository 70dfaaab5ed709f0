import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import {
  capSlots,
  giveBackSlots,
  pauseSlots,
  SlotAnswer,
  SlotRecord,
  SlotRequest,
  SLOTS,
  takeSlots,
} from './upstream-slots.model';

/** The bucket a book's operations spend: the rate learned now, and the capacity. */
interface BookBucket {
  rate: number;
  capacity: number;
}

/** Where an upstream's servers book their starts (upstream-slots.model.ts). */
export interface SlotBook {
  take(key: string, request: SlotRequest): Promise<SlotAnswer>;
  giveBack(key: string, cost: number, bucket: BookBucket): Promise<void>;
  pause(key: string, micros: number): Promise<void>;
  capAt(key: string, left: number, bucket: BookBucket): Promise<void>;
}

/** The book in this process: the memory store's (one process is the whole fleet), on its clock. */
export class MemorySlots implements SlotBook {
  private readonly records = new Map<string, SlotRecord>();

  constructor(private readonly nowMs: () => number) {}

  private record(key: string): SlotRecord {
    let record = this.records.get(key);
    if (!record) this.records.set(key, (record = { tags: new Map(), waiting: new Map() }));
    return record;
  }

  private get now(): number {
    return Math.round(this.nowMs() * 1000);
  }

  async take(key: string, request: SlotRequest): Promise<SlotAnswer> {
    return takeSlots(this.record(key), this.now, request);
  }

  async giveBack(key: string, cost: number, bucket: BookBucket): Promise<void> {
    giveBackSlots(this.record(key), cost, bucket.rate);
  }

  async pause(key: string, micros: number): Promise<void> {
    pauseSlots(this.record(key), this.now, micros);
  }

  async capAt(key: string, left: number, bucket: BookBucket): Promise<void> {
    capSlots(this.record(key), this.now, left, bucket);
  }
}

const SCRIPT = readFileSync(join(__dirname, 'upstream-slots.lua'), 'utf8');
const SHA = createHash('sha1').update(SCRIPT).digest('hex');

type Evaluating = {
  evalsha(sha: string, keys: number, ...args: string[]): Promise<unknown>;
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
};

/** The book in Redis, on Redis's clock: every server of one Redis shares it. */
export class RedisSlots implements SlotBook {
  constructor(private readonly client: Redis | Cluster) {}

  private async run(key: string, args: Array<string | number>): Promise<unknown> {
    const client = this.client as unknown as Evaluating;
    const argv = args.map(String);
    try {
      return await client.evalsha(SHA, 1, key, ...argv);
    } catch (error) {
      if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
      return client.eval(SCRIPT, 1, key, ...argv);
    }
  }

  async take(key: string, request: SlotRequest): Promise<SlotAnswer> {
    const args: Array<string | number> = ['take', request.rate, request.capacity, request.server];
    args.push(SLOTS.maxHorizonMicros, SLOTS.waitingGraceMicros);
    for (const ask of request.asks) {
      args.push(ask.tenant, ask.weight, ask.calls.length);
      for (const [cost, maxWait] of ask.calls) args.push(cost, Math.floor(maxWait));
    }
    const reply = ((await this.run(key, args)) as number[]).map(Number);
    const [pausedMicros, horizonMicros] = reply;
    let at = 2;
    const grants = request.asks.map(() => {
      const booked = reply[at++];
      const starts = reply.slice(at, at + booked);
      at += booked;
      return { starts, nextMicros: reply[at++] };
    });
    return { pausedMicros, horizonMicros, grants };
  }

  async giveBack(key: string, cost: number, bucket: BookBucket): Promise<void> {
    await this.run(key, ['give', bucket.rate, bucket.capacity, cost]);
  }

  async pause(key: string, micros: number): Promise<void> {
    await this.run(key, ['pause', 1, 1, Math.ceil(micros)]);
  }

  async capAt(key: string, left: number, bucket: BookBucket): Promise<void> {
    await this.run(key, ['cap', bucket.rate, bucket.capacity, left]);
  }
}
