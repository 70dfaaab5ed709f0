import { Logger } from '@nestjs/common';
import { countLimit } from '../../../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../../../src/algorithms/count-limit/count-limit.model';
import { MemoryStore, RateLimiterFactory } from '../../../../src';
import { LimiterStore } from '../../../../src/stores/limiter-store';
import { FailurePolicyStore } from '../../../../src/stores/failure/failure-policy.store';
import { StoreUnavailableError } from '../../../../src/errors/store-unavailable.error';

/**
 * A live denial is never evicted before a key that denies nothing, even when the flood of
 * new keys runs on a limit with the very same options (another limit of 1 an hour, or other
 * values of the same key template), which share one partition of the memory store.
 */
describe('MemoryStore keeps live denials under a flood on the same options', () => {
  it('120 times its bound in keys of another limit with the same options', async () => {
    let nowMs = 0;
    const store = new MemoryStore({ now: () => nowMs, maxKeys: 100 });
    const factory = new RateLimiterFactory(store);
    const sms = factory.countLimiter({ key: 'sms:+15550001111', limit: 1, period: 3600 });
    expect(await sms.tryAcquire()).toBe(true);
    expect(await sms.tryAcquire()).toBe(false);
    for (let i = 0; i < 12_000; i++) {
      if (i % 100 === 0) nowMs += 1;
      await factory.countLimiter({ key: `sms:flood:${i}`, limit: 1, period: 3600 }).tryAcquire();
    }
    expect(store.size).toBe(100);
    expect(await sms.decide()).toMatchObject({ allowed: false });
  });

  it('keeps a block as it keeps a denial', async () => {
    let nowMs = 0;
    const store = new MemoryStore({ now: () => nowMs, maxKeys: 1_000 });
    const factory = new RateLimiterFactory(store);
    const sms = factory.countLimiter({ key: 'sms:+15550002222', limit: 5, period: 3600 });
    await sms.block(3600);
    for (let i = 0; i < 5_000; i++) {
      nowMs += 1;
      await factory.countLimiter({ key: `sms:flood:${i}`, limit: 5, period: 3600 }).tryAcquire();
    }
    expect(await sms.decide()).toMatchObject({ allowed: false });
    expect((await sms.peek()).blockedMs).toBe(3600_000 - 5_000);
  });

  it('evicts live denials only when every key held denies, the oldest first', async () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const factory = new RateLimiterFactory(store);
    const count = (key: string) => factory.countLimiter({ key, limit: 1, period: 60 });
    for (const key of ['a', 'b', 'c']) {
      expect(await count(key).tryAcquire()).toBe(true);
      expect(await count(key).tryAcquire()).toBe(false);
    }
    expect(await count('d').tryAcquire()).toBe(true); // evicts a, the oldest denial
    expect(store.size).toBe(3);
    expect([
      await count('b').tryAcquire(),
      await count('c').tryAcquire(),
      await count('a').tryAcquire(),
    ]).toEqual([false, false, true]);
  });
});

/** A store that is down: every decision falls back to memory. */
class DownStore extends LimiterStore {
  evaluate(): Promise<never> {
    return Promise.reject(new StoreUnavailableError('down'));
  }
}

describe("the 'fallback' store keeps live denials under a flood on the same options", () => {
  it('a 1-an-hour denial survives 120,000 keys of the same template', async () => {
    const logger = new Logger('test');
    logger.warn = () => undefined;
    const policyStore = new FailurePolicyStore(new DownStore(), 'fallback', 200, logger);
    const sms = countLimitParams({ limit: 1, period: 3600 });
    const decide = (key: string) =>
      policyStore.decide({ algorithm: countLimit, key, params: sms, request: undefined });
    expect((await decide('countLimit:sms:+15550001111'))?.allowed).toBe(true);
    expect((await decide('countLimit:sms:+15550001111'))?.allowed).toBe(false);
    for (let batch = 0; batch < 120; batch++) {
      await Promise.all(
        Array.from({ length: 1_000 }, (_, i) => decide(`countLimit:sms:+1555${batch}:${i}`)),
      );
    }
    expect((await decide('countLimit:sms:+15550001111'))?.allowed).toBe(false);
  });
});
