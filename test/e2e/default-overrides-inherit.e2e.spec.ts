import { Controller, Get } from '@nestjs/common';
import { CountLimit, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

/**
 * A decorator named like a default replaces it and inherits every option it does not set,
 * key included: over an IP default, the README's `@CountLimit({ name: 'short', limit: 10,
 * period: 1 })` is 10 per second per client, not 10 per second for everybody.
 */
@Controller()
class InheritController {
  @Get('looser')
  @CountLimit({ name: 'short', limit: 10, period: 1 })
  looser() {
    return 'ok';
  }

  @Get('limit-only')
  @CountLimit({ name: 'short', limit: 4 })
  limitOnly() {
    return 'ok';
  }

  @Get('other-algorithm')
  @SlidingWindowLimit({ name: 'short', limit: 2, window: 60 })
  otherAlgorithm() {
    return 'ok';
  }
}

const statusesFrom = async (port: number, path: string, ip: string, count: number) => {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await call(port, { path, localAddress: ip })).status);
  return statuses;
};

describe.each(PLATFORMS)('a named override inherits the default it replaces (%s)', (platform) => {
  const env = useAppOnRedis([InheritController], platform, {
    defaults: [{ name: 'short', algorithm: 'countLimit', limit: 3, period: 60 }],
  });

  it('keeps the default key: one client’s requests do not deny another', async () => {
    expect(await statusesFrom(env.port, '/looser', '127.0.0.11', 11)).toEqual([
      ...Array(10).fill(200),
      429,
    ]);
    expect(await statusesFrom(env.port, '/looser', '127.0.0.12', 1)).toEqual([200]);
    expect(await statusesFrom(env.port, '/looser', '127.0.0.13', 1)).toEqual([200]);
  });

  it('takes the period it does not set from the default, and the key', async () => {
    expect(await statusesFrom(env.port, '/limit-only', '127.0.0.14', 5)).toEqual([
      200, 200, 200, 200, 429,
    ]);
    const [key] = await env.admin.keys('countLimit:*InheritController.limitOnly*');
    expect(key).toMatch(/127\.0\.0\.14/);
    expect(await env.admin.pttl(key)).toBeGreaterThan(50_000);
    expect(await statusesFrom(env.port, '/limit-only', '127.0.0.15', 1)).toEqual([200]);
  });

  it('of another algorithm, keeps the default key alone', async () => {
    expect(await statusesFrom(env.port, '/other-algorithm', '127.0.0.16', 3)).toEqual([
      200, 200, 429,
    ]);
    expect(await statusesFrom(env.port, '/other-algorithm', '127.0.0.17', 1)).toEqual([200]);
  });
});
