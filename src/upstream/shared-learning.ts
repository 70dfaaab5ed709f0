import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import {
  applyReport,
  LEARNING,
  LearnedBudget,
  LearningRecord,
  LearningReport,
} from './upstream-learning.model';

/** Where an upstream's servers meet: its shared record (upstream-learning.model.ts). */
export interface SharedLearning {
  report(key: string, report: LearningReport): Promise<LearnedBudget>;
}

/** The record in this process: the memory store's (one process is the whole fleet), on its clock. */
export class MemoryLearning implements SharedLearning {
  private readonly records = new Map<string, LearningRecord>();

  constructor(private readonly nowMs: () => number) {}

  async report(key: string, report: LearningReport): Promise<LearnedBudget> {
    let record = this.records.get(key);
    if (!record) this.records.set(key, (record = {}));
    return applyReport(record, Math.round(this.nowMs() * 1000), report);
  }
}

const SCRIPT = readFileSync(join(__dirname, 'upstream-learning.lua'), 'utf8');
const SHA = createHash('sha1').update(SCRIPT).digest('hex');
const KNOBS = [
  LEARNING.cutFactor,
  LEARNING.cutGapMicros,
  LEARNING.floorShare,
  LEARNING.climbShare,
  LEARNING.ceilingMicros,
].map(String);

type Evaluating = {
  evalsha(sha: string, keys: number, ...args: string[]): Promise<unknown>;
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
};

/** The record in Redis, on Redis's clock: every server of one Redis shares it. */
export class RedisLearning implements SharedLearning {
  constructor(private readonly client: Redis | Cluster) {}

  async report(key: string, report: LearningReport): Promise<LearnedBudget> {
    const args = [
      key,
      ...KNOBS,
      String(report.configuredRate),
      String(report.successes),
      String(report.throttles),
      report.ceiling === undefined ? '' : String(report.ceiling),
    ];
    const client = this.client as unknown as Evaluating;
    let reply: unknown;
    try {
      reply = await client.evalsha(SHA, 1, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
      reply = await client.eval(SCRIPT, 1, ...args);
    }
    return { rate: Number(reply) };
  }
}
