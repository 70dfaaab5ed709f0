import { LimiterConfigError } from '../../src';
import { useFactoryOnStore } from '../helpers/factory-on-store';

/** The factory's limiters of one configuration share its parameters, validated once. */
describe("the factory's parameters by configuration, on real Redis", () => {
  const env = useFactoryOnStore('redis');

  it('shares one params object among the keys of one configuration, and decides each apart', async () => {
    const { factory, client } = env;
    const a = factory.countLimiter({ key: 'shared:a', limit: 2, period: 60 });
    const b = factory.countLimiter({ key: 'shared:b', limit: 2, period: 60 });
    expect(b).not.toBe(a);
    expect(b.params).toBe(a.params);
    expect(a.params).toEqual({ limit: 2, periodMs: 60_000 });
    expect([await a.tryAcquire(), await a.tryAcquire(), await a.tryAcquire()]).toEqual([
      true,
      true,
      false,
    ]);
    expect(await b.tryAcquire()).toBe(true);
    expect(await client!.get('countLimit:shared:a')).toBe('2');
    expect(await client!.get('countLimit:shared:b')).toBe('1');
  });

  it('gives an options object changed since the parameters of its new values', async () => {
    const { factory, client } = env;
    const options = { key: 'changed:a', limit: 1, period: 60 };
    const one = factory.countLimiter(options);
    expect(await one.tryAcquire()).toBe(true);
    expect(await one.tryAcquire()).toBe(false);
    // Another key with the same object, its limit raised: not the plan of a limit of 1.
    options.key = 'changed:b';
    options.limit = 3;
    const three = factory.countLimiter(options);
    expect(three.params).toEqual({ limit: 3, periodMs: 60_000 });
    expect(three.params).not.toBe(one.params);
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push(await three.tryAcquire());
    expect(allowed).toEqual([true, true, true, false]);
    expect(await client!.get('countLimit:changed:b')).toBe('3');
    // A period given as a duration is a configuration of its own, equal in its parameters.
    const minute = factory.countLimiter({ key: 'changed:c', limit: 3, period: '1m' });
    expect(minute.params).toEqual(three.params);
    expect(await client!.pttl('countLimit:changed:b')).toBeGreaterThan(59_000);
  });

  it('keeps leased and plain configurations apart', async () => {
    const { factory } = env;
    const plain = factory.countLimiter({ key: 'lease:a', limit: 100, period: 60 });
    const leased = factory.countLimiter({ key: 'lease:b', limit: 100, period: 60, lease: 10 });
    expect(plain.params).toEqual({ limit: 100, periodMs: 60_000 });
    expect(leased.params).toEqual({ limit: 100, periodMs: 60_000, leasePermits: 10 });
    expect(await leased.tryAcquire()).toBe(true);
    // The server took 10 permits at once and handed out one.
    expect(await env.client!.get('countLimit:lease:b')).toBe('10');
    expect(await plain.tryAcquire()).toBe(true);
    expect(await env.client!.get('countLimit:lease:a')).toBe('1');
  });

  it('validates every new configuration, after valid ones were cached', () => {
    const { factory } = env;
    factory.countLimiter({ key: 'valid', limit: 1, period: 60 });
    for (let i = 0; i < 2; i++) {
      expect(() => factory.countLimiter({ key: 'valid', limit: 0, period: 60 })).toThrow(
        new LimiterConfigError("countLimiter: option 'limit' must be an integer >= 1, got 0"),
      );
    }
    expect(() => factory.countLimiter({ key: 'other', limit: 1, period: -1 })).toThrow(
      LimiterConfigError,
    );
  });

  it('rejects an invalid permits as before, the limiter cached', async () => {
    const limiter = env.factory.countLimiter({ key: 'permits', limit: 5, period: 60 });
    await expect(limiter.tryAcquire(-1)).rejects.toThrow(
      new LimiterConfigError("countLimiter: option 'permits' must be an integer >= 0, got -1"),
    );
    await expect(limiter.decide(1.5)).rejects.toThrow(LimiterConfigError);
    expect(await limiter.tryAcquire(5)).toBe(true);
    expect(await limiter.tryAcquire()).toBe(false);
  });
});
