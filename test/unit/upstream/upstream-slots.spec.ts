import { MemorySlots, RedisSlots, SlotBook } from '../../../src/upstream/slot-book';
import { SlotAsk, SlotAnswer } from '../../../src/upstream/upstream-slots.model';
import { RedisServer, startRedisServer } from '../../helpers/redis-server';

/**
 * The book of starts on a real Redis (upstream-slots.lua) and its memory twin answer the same
 * asks alike. Offsets are from each one's own now, so a few milliseconds apart at most.
 */
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const calls = (n: number, maxWaitMicros = 10_000_000) =>
  Array.from({ length: n }, () => [1, maxWaitMicros] as const);
const bucket = { rate: 10, capacity: 4 };
const take = (book: SlotBook, key: string, server: string, asks: SlotAsk[]) =>
  book.take(key, { ...bucket, server, asks });

/** Every start and next within 5 ms of the twin's. */
function expectAlike(redisAnswer: SlotAnswer, memoryAnswer: SlotAnswer): void {
  expect(redisAnswer.pausedMicros > 0).toBe(memoryAnswer.pausedMicros > 0);
  expect(redisAnswer.horizonMicros).toBe(memoryAnswer.horizonMicros);
  redisAnswer.grants.forEach((grant, at) => {
    const twin = memoryAnswer.grants[at];
    expect(grant.starts).toHaveLength(twin.starts.length);
    grant.starts.forEach((start, index) => {
      expect(Math.abs(start - twin.starts[index])).toBeLessThanOrEqual(5000);
    });
    expect(Math.sign(grant.nextMicros)).toBe(Math.sign(twin.nextMicros));
    expect(Math.abs(grant.nextMicros - twin.nextMicros)).toBeLessThanOrEqual(5000);
  });
}

describe('the book of starts, on Redis and in memory', () => {
  it('a lone tenant takes the burst, then a slot each 1 / rate; the rest is told when', async () => {
    const answers = await Promise.all(
      [new RedisSlots(redis.client()), new MemorySlots(Date.now)].map((book) =>
        take(book, 'lone', 's1', [{ tenant: 't', weight: 1, calls: calls(7) }]),
      ),
    );
    expectAlike(answers[0], answers[1]);
    const [grant] = answers[1].grants;
    // 4 at once (the capacity), the fifth 100 ms on (within the 150 ms the room allows, at most 100).
    expect(answers[1].horizonMicros).toBe(100_000);
    expect(grant.starts).toEqual([0, 0, 0, 0, 100_000]);
    expect(grant.nextMicros).toBe(200_000);
  });

  it('tenants of one ask are paced by weight and interleaved; a deadline stops a tenant', async () => {
    const asks: SlotAsk[] = [
      { tenant: 'light', weight: 1, calls: calls(5) },
      { tenant: 'heavy', weight: 3, calls: calls(5) },
      { tenant: 'hurried', weight: 1, calls: calls(2, 0) },
    ];
    const answers = await Promise.all(
      [new RedisSlots(redis.client()), new MemorySlots(Date.now)].map((book) =>
        take(book, 'paced', 's1', asks),
      ),
    );
    expectAlike(answers[0], answers[1]);
    const [light, heavy, hurried] = answers[1].grants;
    // W = 5: light and hurried every 500 ms, heavy every 167 ms, each starting 100 ms behind
    // the clock (the catch-up); hurried may not wait at all, so its second call is not booked.
    expect(light).toEqual({ starts: [0], nextMicros: 400_000 });
    expect(heavy).toEqual({ starts: [0, 66_666], nextMicros: 233_333 });
    expect(hurried).toEqual({ starts: [0], nextMicros: 400_000 });
  });

  it('a pause refuses every ask until it ends; a slot given back is booked again', async () => {
    for (const book of [new RedisSlots(redis.client()), new MemorySlots(Date.now)]) {
      await book.pause('paused', 300_000);
      const paused = await take(book, 'paused', 's1', [
        { tenant: 't', weight: 1, calls: calls(1) },
      ]);
      expect(paused.pausedMicros).toBeGreaterThan(250_000);
      expect(paused.pausedMicros).toBeLessThanOrEqual(300_000);
      expect(paused.grants[0].starts).toEqual([]);
      const full = await take(book, 'given', 's1', [{ tenant: 't', weight: 1, calls: calls(6) }]);
      expect(full.grants[0].starts).toHaveLength(5);
      await book.giveBack('given', 1, bucket);
      const again = await take(book, 'given', 's1', [{ tenant: 't', weight: 1, calls: calls(1) }]);
      expect(again.grants[0].starts).toHaveLength(1);
      expect(again.grants[0].starts[0]).toBeLessThanOrEqual(100_000);
    }
  });
});
