import { ConformanceCase, same, within } from './check-context';
import { LIMIT, SUBJECTS } from './subjects';

/** The longest retry or reset a limit of the long subjects answers: a day, in ms. */
const DAY_MS = 24 * 3600 * 1000;
/** How many decisions a check sends at once on one key: several times the limit. */
const AT_ONCE = 5 * LIMIT;

/**
 * Each algorithm's decisions at exact counts: the limit granted one by one with the exact
 * remaining, then a denial that takes nothing and says when to retry; all of them asked at
 * once still grant exactly the limit (each decision atomic); a request the limit can never
 * grant is denied with -1 and takes nothing; a look takes nothing.
 */
export const decisionChecks: ConformanceCase[] = SUBJECTS.flatMap((subject) => [
  {
    name: `${subject.name}: grants ${LIMIT} one by one with the exact remaining, then denies with a retry time`,
    async run({ factory }) {
      const limiter = subject.long(factory, 'one-by-one');
      const answers = [];
      for (let i = 0; i <= LIMIT; i++) answers.push(await limiter.decide());
      same(
        'allowed, remaining',
        answers.map(({ allowed, remaining }) => [allowed, remaining]),
        [
          [true, 4],
          [true, 3],
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
      const denied = answers[LIMIT];
      within('retryAfterMs of the denial', denied.retryAfterMs, 0, 366 * DAY_MS);
      within('resetMs of the first decision', answers[0].resetMs, 0, 366 * DAY_MS);
      same(
        'allowed answers retry at once',
        answers.slice(0, LIMIT).map((a) => a.retryAfterMs),
        [0, 0, 0, 0, 0],
      );
      same('remaining after the denial', await limiter.remaining(), 0);
    },
  },
  {
    name: `${subject.name}: ${AT_ONCE} decisions at once grant exactly ${LIMIT}, each with its own remaining`,
    async run({ factory }) {
      const limiter = subject.long(factory, 'at-once');
      const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => limiter.decide()));
      const allowed = answers.filter((answer) => answer.allowed);
      same('allowed', allowed.length, LIMIT);
      same(
        'remaining of the allowed, sorted',
        allowed.map((a) => a.remaining).sort(),
        [0, 1, 2, 3, 4],
      );
      same('remaining after', await limiter.remaining(), 0);
    },
  },
  {
    name: `${subject.name}: a request of more than ${LIMIT} is denied with retryAfterMs -1 and takes nothing`,
    async run({ factory }) {
      const limiter = subject.long(factory, 'above-the-limit');
      const answer = await limiter.decide(LIMIT + 1);
      same('allowed, retryAfterMs', [answer.allowed, answer.retryAfterMs], [false, -1]);
      same('remaining after', await limiter.remaining(), LIMIT);
      same('a request of the whole limit', (await limiter.decide(LIMIT)).allowed, true);
    },
  },
  {
    name: `${subject.name}: a look takes nothing`,
    async run({ factory }) {
      const limiter = subject.long(factory, 'look');
      await limiter.decide(2);
      const looks = [
        await limiter.remaining(),
        await limiter.remaining(),
        await limiter.remaining(),
      ];
      same('remaining, looked at three times', looks, [3, 3, 3]);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await limiter.decide()).allowed);
      same('the next four', answers, [true, true, true, false]);
    },
  },
]);
