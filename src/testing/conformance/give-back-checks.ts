import { ConformanceCase, same, within } from './check-context';
import { LIMIT, SUBJECTS } from './subjects';

const MINUTE_MS = 60_000;

/**
 * What gives permits back or takes the state away: a refund is granted again and never
 * raises a limit above itself, a reset forgets the state and its block, a block denies
 * whatever the state says; a concurrency slot is free again once released, once.
 */
export const giveBackChecks: ConformanceCase[] = [
  ...SUBJECTS.filter((subject) => subject.operations.includes('refund')).map(
    (subject): ConformanceCase => ({
      name: `${subject.name}: permits refunded are granted again, never above the limit`,
      async run({ factory }) {
        const limiter = subject.long(factory, 'refund');
        for (let i = 0; i < LIMIT; i++) await limiter.decide();
        await limiter.refund!(2);
        same('remaining after a refund of 2', await limiter.remaining(), 2);
        const answers = [];
        for (let i = 0; i < 3; i++) answers.push((await limiter.decide()).allowed);
        same('the next three', answers, [true, true, false]);
        const fresh = subject.long(factory, 'refund-above');
        await fresh.decide();
        await fresh.refund!(LIMIT + 3);
        same('remaining after refunding more than was taken', await fresh.remaining(), LIMIT);
      },
    }),
  ),
  ...SUBJECTS.filter((subject) => subject.operations.includes('reset')).map(
    (subject): ConformanceCase => ({
      name: `${subject.name}: a reset forgets the state and its block`,
      async run({ factory }) {
        const limiter = subject.long(factory, 'reset');
        for (let i = 0; i < LIMIT; i++) await limiter.decide();
        await limiter.block!(60);
        await limiter.reset!();
        same('remaining after the reset', await limiter.remaining(), LIMIT);
        const answers = [];
        for (let i = 0; i <= LIMIT; i++) answers.push((await limiter.decide()).allowed);
        same('decisions after the reset', answers, [true, true, true, true, true, false]);
      },
    }),
  ),
  ...SUBJECTS.filter((subject) => subject.operations.includes('block')).map(
    (subject): ConformanceCase => ({
      name: `${subject.name}: a block denies a key with room, until its end`,
      async run({ factory }) {
        const limiter = subject.long(factory, 'block');
        await limiter.block!(60);
        const answer = await limiter.decide();
        same('allowed while blocked', answer.allowed, false);
        within('retryAfterMs while blocked', answer.retryAfterMs, 0, MINUTE_MS);
      },
    }),
  ),
  {
    name: 'concurrencyLimit: a released slot is free at once, and a second release frees nothing',
    async run({ factory }) {
      const limiter = factory.concurrencyLimiter({ key: 'release', max: LIMIT });
      const slots = await Promise.all(
        Array.from({ length: 4 * LIMIT }, () => limiter.tryAcquire()),
      );
      const held = slots.filter((slot) => slot !== null);
      same('slots granted at once', held.length, LIMIT);
      await held[0].release();
      await limiter.release(held[0].id);
      same('free after releasing one twice', (await limiter.peek()).remaining, 1);
      const again = await Promise.all(
        Array.from({ length: 4 * LIMIT }, () => limiter.tryAcquire()),
      );
      same('slots granted at once after', again.filter((slot) => slot !== null).length, 1);
      await Promise.all(held.slice(1).map((slot) => slot.release()));
      same('free after releasing four more', (await limiter.peek()).remaining, 4);
    },
  },
];
