import { MemoryStore, RateLimiterFactory, UpstreamBusyError } from '../../../src';
import type { UpstreamOptions } from '../../../src';

/** A factory on a memory store; its upstreams are closed after each test. */
function factoryOnMemory() {
  const factory = new RateLimiterFactory(new MemoryStore());
  const upstream = (options: UpstreamOptions) => factory.upstream(options);
  return { factory, upstream };
}

let made: RateLimiterFactory[] = [];
function freshUpstream(options: Omit<UpstreamOptions, 'name'> & { name?: string }) {
  const { factory, upstream } = factoryOnMemory();
  made.push(factory);
  return upstream({ name: 'api', ...options });
}
afterEach(() => {
  for (const factory of made) factory.onApplicationShutdown();
  made = [];
});

const settled = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('upstream.call', () => {
  it('returns what the function returns and rethrows what it throws', async () => {
    const api = freshUpstream({ rate: 100 });
    await expect(api.call(() => 42)).resolves.toBe(42);
    await expect(api.call(async () => 'async')).resolves.toBe('async');
    const failure = new Error('upstream failed');
    await expect(
      api.call(() => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });

  it('starts exactly `capacity` calls at once; with timeout 0 the others are busy, naming the upstream', async () => {
    const api = freshUpstream({ rate: 1, capacity: 3, timeout: 0 });
    let started = 0;
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => settled(api.call(() => ++started))),
    );
    expect(started).toBe(3);
    const busy = outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.error);
    expect(busy).toHaveLength(5);
    for (const error of busy) {
      expect(error).toBeInstanceOf(UpstreamBusyError);
      expect((error as UpstreamBusyError).name).toBe('UpstreamBusyError');
      expect((error as UpstreamBusyError).upstream).toBe('api');
      // The next slot comes within a second at 1 call a second.
      expect((error as UpstreamBusyError).retryAfterMs).toBeGreaterThan(0);
      expect((error as UpstreamBusyError).retryAfterMs).toBeLessThanOrEqual(1000);
    }
  });

  it('waits for its slot within the timeout rather than failing, first in first out in a tenant', async () => {
    const api = freshUpstream({ rate: 50, capacity: 1, timeout: '10s' });
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, index) => api.call(() => order.push(index), { tenant: 't' })),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('rejects at once with the reason of a signal already aborted, and never runs the function', async () => {
    const api = freshUpstream({ rate: 10 });
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    let ran = false;
    await expect(api.call(() => (ran = true), { signal: controller.signal })).rejects.toThrow(
      'gone',
    );
    expect(ran).toBe(false);
  });

  it('an aborted waiting call rejects at once and gives back the slot it held', async () => {
    // 10 a second, one at a time: after A, B holds the slot 100 ms away.
    const api = freshUpstream({ rate: 10, capacity: 1, timeout: 0.15 });
    await api.call(() => 'A');
    const controller = new AbortController();
    const waiting = settled(api.call(() => 'B', { signal: controller.signal }));
    await new Promise(setImmediate);
    controller.abort(new Error('user left'));
    const b = await waiting;
    expect(b.ok).toBe(false);
    expect(String((b as { error: Error }).error.message)).toBe('user left');
    // Given back: C, waiting at most 150 ms, gets B's slot 100 ms after A (kept, the next
    // slot would be 200 ms after A and C busy).
    await expect(api.call(() => 'C')).resolves.toBe('C');
  });

  it('checks cost, weight and tenant, naming the upstream', async () => {
    const api = freshUpstream({ rate: 10, capacity: 2 });
    await expect(api.call(() => 1, { cost: 3 })).rejects.toThrow(
      "upstream 'api' call: option 'cost' must be at most the upstream's capacity (2), got 3",
    );
    await expect(api.call(() => 1, { weight: 0 })).rejects.toThrow(
      "upstream 'api' call: option 'weight' must be a finite number > 0, got 0",
    );
  });
});

describe('declaring upstreams', () => {
  it('names the upstream and the option of a mistake', () => {
    const { upstream } = factoryOnMemory();
    expect(() => upstream({ name: 'openai', rate: 0 })).toThrow(/upstream 'openai'.*'rate'/);
    expect(() => upstream({ name: 'openai', rate: 10, burst: 2 } as never)).toThrow(
      /upstream 'openai': unknown option 'burst'/,
    );
    expect(() => upstream({ name: 'openai', rate: 10, capacity: 0.5 })).toThrow(
      "upstream 'openai': option 'capacity' must be a finite number >= 1, got 0.5",
    );
    expect(() => upstream({ name: 'openai', rate: 10, timeout: '1 m' })).toThrow(
      /upstream 'openai'.*'timeout'/,
    );
    expect(() => upstream({ name: 'openai', rate: 10, learn: 'yes' } as never)).toThrow(
      "upstream 'openai': option 'learn' must be true or false, got 'yes'",
    );
  });

  it('one name is one budget: the same options give the same instance, other options fail', () => {
    const { factory, upstream } = factoryOnMemory();
    made.push(factory);
    const first = upstream({ name: 'stripe', rate: 25 });
    expect(upstream({ name: 'stripe', rate: 25 })).toBe(first);
    expect(factory.upstream('stripe')).toBe(first);
    expect(() => upstream({ name: 'stripe', rate: 50 })).toThrow(
      /upstream 'stripe': declared again with other options/,
    );
    expect(() => factory.upstream('github')).toThrow(
      "upstream 'github' is not declared; declare it in forRoot({ upstreams }) or with factory.upstream({ name, rate }); the upstreams are stripe",
    );
  });
});
