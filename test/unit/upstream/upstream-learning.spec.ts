import { applyReport, LearningRecord } from '../../../src/upstream/upstream-learning.model';
import { MemoryStore, RateLimiterFactory } from '../../../src';

const report = (overrides: Partial<Parameters<typeof applyReport>[2]> = {}) => ({
  configuredRate: 100,
  successes: 0,
  throttles: 0,
  ...overrides,
});

describe('the shared record (memory twin of upstream-learning.lua)', () => {
  it('a bare 429 cuts the rate by 15 %, once per 500 ms; successes climb 3 % of the rate a second', () => {
    const record: LearningRecord = {};
    expect(applyReport(record, 0, report({ throttles: 1 })).rate).toBe(85);
    // The 429s of calls already sent at the old rate cut nothing more.
    expect(applyReport(record, 100_000, report({ throttles: 3 })).rate).toBe(85);
    expect(applyReport(record, 600_000, report({ throttles: 1 })).rate).toBeCloseTo(72.25, 9);
    // 1 s of successes: + 3 calls a second.
    expect(applyReport(record, 1_600_000, report({ successes: 40 })).rate).toBeCloseTo(75.25, 9);
    // Never above the configured rate.
    for (let second = 2; second < 30; second++) {
      applyReport(record, second * 1_000_000, report({ successes: 40 }));
    }
    expect(applyReport(record, 30_000_000, report({ successes: 1 })).rate).toBe(100);
  });

  it('a ceiling from the headers caps the rate, never above the configured one', () => {
    const record: LearningRecord = {};
    expect(applyReport(record, 0, report({ ceiling: 49 })).rate).toBe(49);
    // A higher ceiling lets the rate climb again, not jump: at most 1 s of climb per report.
    expect(applyReport(record, 1, report({ ceiling: 500 })).rate).toBe(49);
    expect(applyReport(record, 2_000_000, report({ successes: 5 })).rate).toBe(52);
  });
});

describe('learning on the memory store', () => {
  it('a bare 429 lowers the learned rate; with learn: false nothing is learned', async () => {
    const factory = new RateLimiterFactory(new MemoryStore());
    const learning = factory.upstream({ name: 'learns', rate: 100 });
    const deaf = factory.upstream({ name: 'deaf', rate: 100, learn: false });
    const tooMany = { status: 429, headers: {} };
    await learning.call(() => tooMany);
    await deaf.call(() => tooMany);
    const learned = () => learning.status().learnedRate;
    for (let waited = 0; learned() === 100 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(learned()).toBe(85);
    expect(deaf.status().learnedRate).toBe(100);
    factory.onApplicationShutdown();
  });

  it('a Retry-After pauses the upstream: a call that cannot wait that long is busy', async () => {
    const factory = new RateLimiterFactory(new MemoryStore());
    const api = factory.upstream({ name: 'paused', rate: 100, timeout: 0.5 });
    await api.call(() => ({ status: 429, headers: { 'retry-after': '2' } }));
    expect(api.status().pausedForMs).toBeGreaterThan(1500);
    const error = await api.call(() => 'never').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'UpstreamBusyError' });
    expect((error as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(1000);
    const deafFactory = new RateLimiterFactory(new MemoryStore());
    const deaf = deafFactory.upstream({ name: 'paused', rate: 100, timeout: 0.5, learn: false });
    await deaf.call(() => ({ status: 429, headers: { 'retry-after': '2' } }));
    await expect(deaf.call(() => 'starts')).resolves.toBe('starts');
    factory.onApplicationShutdown();
    deafFactory.onApplicationShutdown();
  });
});

describe("the memory store's shared record", () => {
  it("climbs by the store's clock, not the wall clock", async () => {
    let storeNow = 1_000_000_000;
    const factory = new RateLimiterFactory(new MemoryStore({ now: () => storeNow }));
    const api = factory.upstream({ name: 'clocked', rate: 100 });
    const learned = () => api.status().learnedRate;
    const waitFor = async (done: () => boolean) => {
      for (let waited = 0; !done() && waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await api.call(() => ({ status: 429, headers: {} }));
    await waitFor(() => learned() !== 100);
    expect(learned()).toBe(85);
    // Successes over more than a second of wall time, none of the store's: no climb.
    const wallStart = Date.now();
    while (Date.now() - wallStart < 1200) {
      await api.call(() => ({ status: 200, headers: {} }));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(learned()).toBe(85);
    // A second of the store's time: 3 % of the rate.
    storeNow += 1000;
    await api.call(() => ({ status: 200, headers: {} }));
    await waitFor(() => learned() !== 85);
    expect(learned()).toBe(88);
    factory.onApplicationShutdown();
  });
});
