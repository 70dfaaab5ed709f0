import { Logger } from '@nestjs/common';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { startRedisServer } from '../helpers/redis-server';

describe("the 'fallback' store under a flood of other keys", () => {
  it('keeps a denial while 110,000 other keys are decided in memory', async () => {
    const server = await startRedisServer();
    const store = new RedisStore({ client: server.client({ maxRetriesPerRequest: 0 }) });
    const logger = new Logger('test');
    logger.warn = () => undefined;
    const policyStore = new FailurePolicyStore(store, 'fallback', 200, logger);
    const sms = countLimitParams({ limit: 1, period: 3600 });
    const search = countLimitParams({ limit: 100, period: 60 });
    try {
      await server.kill(); // Redis is gone: every decision falls back to memory
      const decide = (params: typeof sms, key: string) =>
        policyStore.decide({ algorithm: countLimit, key, params, request: undefined });
      expect((await decide(sms, 'countLimit:sms:+15550001111'))?.allowed).toBe(true);
      expect((await decide(sms, 'countLimit:sms:+15550001111'))?.allowed).toBe(false);
      // More distinct keys than the fallback store's 100,000, in batches to bound memory.
      for (let batch = 0; batch < 110; batch++) {
        await Promise.all(
          Array.from({ length: 1_000 }, (_, i) => decide(search, `countLimit:q:${batch}:${i}`)),
        );
      }
      expect((await decide(sms, 'countLimit:sms:+15550001111'))?.allowed).toBe(false);
    } finally {
      await store.close();
      await server.stop();
    }
  });
});
