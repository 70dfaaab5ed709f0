import { Logger } from '@nestjs/common';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * "A busy app is not a down Redis", made deterministic: the event loop is blocked
 * (as a burst of requests blocks it) past storeTimeout while Redis answers at once. The
 * decisions are Redis's, never the failure policy's (null here: 'allow' without a store).
 */
const STORE_TIMEOUT_MS = 50;
const BUSY_MS = 150;
const params = countLimitParams({ limit: 2, period: 60 });

/** Keeps the event loop busy, as parsing a thousand requests does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}
const afterSend = () => new Promise((resolve) => setImmediate(resolve));

describe('a busy app on a healthy Redis', () => {
  let server: RedisServer;
  let store: RedisStore;
  let policyStore: FailurePolicyStore;
  const allowed = (decisions: ({ allowed: boolean } | null)[]) =>
    decisions.map((decision) => decision?.allowed ?? 'store-error');
  const decideFive = (key: string) =>
    Array.from({ length: 5 }, () =>
      policyStore.decide({ algorithm: countLimit, key, params, request: undefined }),
    );

  beforeAll(async () => {
    server = await startRedisServer();
    store = new RedisStore({ client: server.client() });
    const logger = new Logger('test');
    logger.warn = () => undefined;
    policyStore = new FailurePolicyStore(store, 'allow', STORE_TIMEOUT_MS, logger);
    // Started as the module starts it: the engine's library is loaded before the first
    // decision, which must not pay for it within a 50 ms storeTimeout.
    await store.check();
    // A first reply: the connection is up and the store's clock has a sample.
    expect(
      allowed([
        await policyStore.decide({
          algorithm: countLimit,
          key: 'warm-up',
          params,
          request: undefined,
        }),
      ]),
    ).toEqual([true]);
  });
  afterAll(async () => {
    await store.close();
    await server.stop();
  });

  it('reads the replies waiting in the socket before it declares a timeout', async () => {
    const decisions = decideFive('countLimit:waiting');
    await afterSend();
    busy(BUSY_MS); // Redis answers meanwhile; the timer comes due before the socket is read
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('counts the wait from when the decisions left, not from when a busy app queued them', async () => {
    const decisions = decideFive('countLimit:queued');
    busy(BUSY_MS); // before they are sent: their deadline passes while they wait in the app
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('uses the answer of a Redis that was late too: what it skipped is sent again while its callers wait', async () => {
    // Redis runs the batch past its deadline (it was frozen, as a starved CPU freezes it) and
    // answers "skipped"; the app, busy all along, reads that answer before it judges the
    // deadline. Its callers still wait: they get Redis's decision, not the failure policy's.
    server.freeze();
    const decisions = decideFive('countLimit:late-redis');
    await afterSend();
    busy(STORE_TIMEOUT_MS + 30);
    server.thaw();
    busy(BUSY_MS - STORE_TIMEOUT_MS);
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('never opens the circuit breaker on the app’s own lag', async () => {
    for (let spell = 0; spell < 5; spell++) {
      const decisions = decideFive(`countLimit:spell:${spell}`);
      if (spell % 2) await afterSend();
      busy(BUSY_MS);
      await Promise.all(decisions);
    }
    const next = decideFive('countLimit:after-spells');
    expect(allowed(await Promise.all(next))).toEqual([true, true, false, false, false]);
  });
});
