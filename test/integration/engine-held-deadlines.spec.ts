import { Logger } from '@nestjs/common';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { watchLateness } from '../helpers/lateness';

/**
 * A decision held behind calls in flight to a silent Redis waits storeTimeout from the end
 * of the turn it asked in, not from the later write that lets it go: the calls it waited
 * for ended without an answer (here ioredis's commandTimeout, as a dead Cluster master's
 * do), so its wait was Redis's silence, and its caller's storeTimeout runs once.
 */
const params = countLimitParams({ limit: 1e9, period: 60 });
const STORE_TIMEOUT_MS = 200;
/** The calls in flight fail this long after their write, while the held decision waits. */
const COMMAND_TIMEOUT_MS = 180;
const afterSend = () => new Promise((resolve) => setImmediate(resolve));

describe('a decision held behind calls to a silent Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.stop());

  it('gives up storeTimeout after the end of the turn it asked in (storeTimeout once)', async () => {
    const store = new RedisStore({
      client: server.client({ commandTimeout: COMMAND_TIMEOUT_MS }),
    });
    const logger = new Logger('test');
    logger.warn = () => undefined;
    logger.error = () => undefined;
    const policy = new FailurePolicyStore(store, 'allow', STORE_TIMEOUT_MS, logger);
    const decide = (key: string) =>
      policy.decide({ algorithm: countLimit, key, params, request: undefined });
    expect((await decide('held-silent:warm-up'))?.allowed).toBe(true);
    server.freeze();
    try {
      const lateness = watchLateness();
      // Two calls in flight: the engine's limit on one connection.
      const first = decide('held-silent:first');
      await afterSend();
      const second = decide('held-silent:second');
      await afterSend();
      const askedAt = performance.now();
      const held = decide('held-silent:held').then((decision) => ({
        decision,
        waitedMs: performance.now() - askedAt,
      }));
      const [a, b, c] = await Promise.all([first, second, held]);
      lateness.stop();
      expect([a, b, c.decision]).toEqual([null, null, null]);
      // The end of its turn, its timer, and the turn it is judged in: each late at most
      // by the loop's measured lateness and its resolution. Its wait started again at the
      // write would end near COMMAND_TIMEOUT_MS + STORE_TIMEOUT_MS.
      expect(c.waitedMs).toBeLessThan(STORE_TIMEOUT_MS + 3 * lateness.turnMs());
    } finally {
      server.thaw();
    }
    await store.close();
  });
});
