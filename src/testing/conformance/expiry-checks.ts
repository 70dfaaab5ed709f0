import { ConformanceCase, same } from './check-context';
import { LIMIT, SUBJECTS } from './subjects';

/**
 * The span a short limit recovers in (a window, a lease, a refill). Only lower bounds are
 * checked after it: the state must have recovered once the span has passed, which holds
 * however slow the machine; nothing is asserted about a time before it ends.
 */
const SPAN_MS = 200;
/** Past the span: Redis keeps a key's TTL in whole ms, rounded up. */
const MARGIN_MS = 20;

/** State expires: a limit taken in full is whole again once its span has passed. */
export const expiryChecks: ConformanceCase[] = SUBJECTS.flatMap((subject) =>
  subject.short && subject.recoverMs
    ? [
        {
          name: `${subject.name}: a limit taken in full is whole again once its span has passed`,
          async run({ factory, advance }) {
            const limiter = subject.short!(factory, 'expiry', SPAN_MS);
            const taken = await Promise.all(Array.from({ length: LIMIT }, () => limiter.decide()));
            same('allowed at first', taken.filter((answer) => answer.allowed).length, LIMIT);
            await advance(subject.recoverMs!(SPAN_MS) + MARGIN_MS);
            same('remaining after the span', await limiter.remaining(), LIMIT);
            const next = await limiter.decide();
            same('the next decision', [next.allowed, next.remaining], [true, LIMIT - 1]);
          },
        } satisfies ConformanceCase,
      ]
    : [],
);
