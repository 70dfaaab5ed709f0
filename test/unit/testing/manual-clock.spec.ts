import { RateLimiterFactory } from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('ManualClock', () => {
  it('resolves waits in due order, only when advanced past them', async () => {
    const clock = new ManualClock(1000);
    const resolved: number[] = [];
    for (const ms of [300, 100, 200]) void clock.sleep(ms).then(() => resolved.push(ms));
    await flush();
    expect([resolved, clock.pendingWaits]).toEqual([[], 3]);
    clock.advance(199);
    await flush();
    expect(resolved).toEqual([100]);
    clock.advance(101);
    await flush();
    expect([resolved, clock.now(), clock.pendingWaits]).toEqual([[100, 200, 300], 1300, 0]);
  });

  it('a wait of 0 resolves at once; advance refuses a negative or infinite step', async () => {
    const clock = new ManualClock();
    await clock.sleep(0);
    expect(clock.now()).toBe(Date.UTC(2024, 0, 1));
    expect(() => clock.advance(-1)).toThrow('ManualClock.advance: milliseconds must be >= 0');
    expect(() => clock.advance(Infinity)).toThrow(RangeError);
  });

  it('whenWaiting(n) resolves once n waits are scheduled', async () => {
    const clock = new ManualClock();
    let ready = false;
    void clock.whenWaiting(2).then(() => (ready = true));
    void clock.sleep(10);
    await flush();
    expect(ready).toBe(false);
    void clock.sleep(10);
    await flush();
    expect(ready).toBe(true);
  });

  it('RateLimiter.acquire waits on the store clock, not on real timers', async () => {
    const clock = new ManualClock();
    const factory = new RateLimiterFactory(createTestingStore({ clock }));
    const sms = factory.rateLimiter({ key: 'sms:42', rate: 1 / 60, burst: 60 });
    expect(await sms.acquire()).toBe(0);
    let waited: number | undefined;
    void sms.acquire(2).then((ms) => (waited = ms));
    await clock.whenWaiting(1);
    clock.advance(119_999);
    await flush();
    expect(waited).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(waited).toBe(120_000);
  });
});

describe('sleep beyond what a Node timer holds', () => {
  it('waits in parts instead of firing after 1 ms', async () => {
    jest.useFakeTimers();
    try {
      const { sleep, MAX_TIMER_MS } = await import('../../../src/stores/sleep');
      let done = false;
      void sleep(MAX_TIMER_MS + 5_000).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(4_999);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
