import { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimiterFactory, RedisStore } from '../../src';
import { exitAfterPrinting, printed, spawnChildScript } from '../helpers/child-app';
import { RedisServer, startRedisServer, stopProcess } from '../helpers/redis-server';

const DAY = 86_400_000;

/** Daily cycles that start at `boundary`'s time of day (UTC), as an ISO anchor. */
const anchorAt = (boundary: number) => new Date(boundary).toISOString().replace(/\.\d+Z$/, 'Z');

describe('calendar quota across app processes on one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  function consumers(env: Record<string, string>[]): ChildProcess[] {
    return env.map((own) =>
      spawnChildScript('quota-consumer.ts', { REDIS_URL: redis.url, ...own }),
    );
  }

  describe('4 servers, their clocks 1.5 s apart, charging through a cycle boundary', () => {
    let records: {
      sentAt: number;
      receivedAt: number;
      cycleStart: number;
      used: number;
      allowed: boolean;
      soft: boolean;
    }[];
    let boundary: number;

    beforeAll(async () => {
      // Whole seconds: the anchor's time of day is the boundary's. Children load for seconds
      // on a busy machine; they start together 1.5 s before it and stop 1.5 s after.
      const startFile = join(mkdtempSync(join(tmpdir(), 'quota-')), 'start.json');
      const children = consumers(
        [-1500, -500, 500, 1500].map((skew) => ({
          MODE: 'burst',
          KEY: 'boundary',
          LIMIT: '1000000',
          SOFT: '40',
          SKEW_MS: String(skew),
          START_FILE: startFile,
          IN_FLIGHT: '8',
        })),
      );
      const exits = children.map((child) => exitAfterPrinting(child, /DONE/, 20_000, 300_000));
      await Promise.all(children.map((child) => printed(child, /READY/)));
      boundary = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      const times = {
        anchor: anchorAt(boundary),
        startAt: boundary - 1500,
        stopAt: boundary + 1500,
      };
      writeFileSync(startFile, `${JSON.stringify(times)}\n`);
      const outcomes = await Promise.all(exits);
      expect(outcomes.map(({ outcome }) => outcome)).toEqual([
        'exit 0',
        'exit 0',
        'exit 0',
        'exit 0',
      ]);
      records = outcomes.flatMap(({ output }) =>
        output
          .split('\n')
          .filter((line) => line.startsWith('R '))
          .map((line) => {
            const [sentAt, receivedAt, cycleStart, used, allowed, soft] = line
              .slice(2)
              .split(' ')
              .map(Number);
            return {
              sentAt,
              receivedAt,
              cycleStart,
              used,
              allowed: allowed === 1,
              soft: soft === 1,
            };
          }),
      );
    }, 400_000);

    it('charges each request to the cycle of Redis’s clock, whatever its server’s clock says', () => {
      const before = records.filter((r) => r.receivedAt < boundary);
      const after = records.filter((r) => r.sentAt >= boundary);
      expect(before.length).toBeGreaterThan(20);
      expect(after.length).toBeGreaterThan(20);
      expect(records.every((r) => r.allowed)).toBe(true);
      expect(new Set(before.map((r) => r.cycleStart))).toEqual(new Set([boundary - DAY]));
      expect(new Set(after.map((r) => r.cycleStart))).toEqual(new Set([boundary]));
      expect(new Set(records.map((r) => r.cycleStart))).toEqual(
        new Set([boundary - DAY, boundary]),
      );
      // Each cycle counted every one of its requests once: 1, 2, ... n, no gap, no repeat.
      for (const start of [boundary - DAY, boundary]) {
        const used = records.filter((r) => r.cycleStart === start).map((r) => r.used);
        expect(used.sort((a, b) => a - b)).toEqual(used.map((_, i) => i + 1));
      }
    });

    it('tells the soft limit once in each cycle, across the servers, at exactly the soft count', () => {
      const soft = records.filter((r) => r.soft).map((r) => [r.cycleStart, r.used]);
      expect(soft.sort()).toEqual([
        [boundary - DAY, 40],
        [boundary, 40],
      ]);
    });
  });

  it('charges each idempotency key once while 3 servers retry every key and one is killed half-way', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `order-${i}`);
    const shuffled = (seed: number) =>
      ids
        .map((id, i) => ({ id, rank: (i * 7919 + seed * 104_729) % 300 }))
        .sort((a, b) => a.rank - b.rank)
        .map(({ id }) => id);
    const anchor = anchorAt(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    const common = {
      MODE: 'ids',
      KEY: 'orders',
      LIMIT: '100000',
      ANCHOR: anchor,
      START_AT: '0',
      IN_FLIGHT: '10',
    };
    // Each server sends every key, in its own order, twice over (a retry of each).
    const children = consumers(
      [1, 2, 3].map((seed) => ({
        ...common,
        IDS: [...shuffled(seed), ...shuffled(seed + 3)].join(','),
      })),
    );
    const killed = exitAfterPrinting(children[0], /HALF/, 0, 300_000);
    const survivors = children
      .slice(1)
      .map((child) => exitAfterPrinting(child, /DONE/, 30_000, 300_000));
    const outcomes = await Promise.all([killed, ...survivors]);
    await stopProcess(children[0]);
    expect(outcomes.slice(1).map(({ outcome }) => outcome)).toEqual(['exit 0', 'exit 0']);
    const store = new RedisStore({ client: redis.client(), ownsClient: true });
    try {
      const quota = new RateLimiterFactory(store).quota({
        key: 'orders',
        limit: 100_000,
        cycle: 'day',
        anchor,
      });
      expect((await quota.usage()).used).toBe(300);
    } finally {
      await store.close();
    }
    // Every answer for one key is the first one's: the same `used`, whoever sent it.
    const answers = new Map<string, Set<number>>();
    let repeats = 0;
    for (const { output } of outcomes) {
      for (const line of output.split('\n').filter((l) => l.startsWith('I '))) {
        const [, id, used, repeated] = line.split(' ');
        answers.set(id, (answers.get(id) ?? new Set()).add(Number(used)));
        repeats += Number(repeated);
      }
    }
    expect(answers.size).toBe(300);
    expect([...answers.values()].every((used) => used.size === 1)).toBe(true);
    expect(new Set([...answers.values()].map((used) => [...used][0])).size).toBe(300);
    expect(repeats).toBeGreaterThanOrEqual(900);
  }, 400_000);
});
