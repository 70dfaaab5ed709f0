import { Controller, Get } from '@nestjs/common';
import { CountLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call } from '../helpers/http';

/**
 * docs/key-pitfalls.md: a key the client writes is a key the client chooses. A random
 * x-api-key per request is a fresh count each time; next to an IP default (a name of its
 * own) the IP limit still holds, while replacing the default lets the client escape it.
 */
@Controller()
class ReportsController {
  @Get('added')
  @CountLimit({ name: 'perKey', key: "#{headers['x-api-key'] ?? ip}", limit: 100, period: 60 })
  added() {
    return [];
  }

  @Get('replacing')
  @CountLimit({ name: 'perIp', key: "#{headers['x-api-key'] ?? ip}", limit: 100, period: 60 })
  replacing() {
    return [];
  }
}

describe('a key template the client writes, next to an IP default', () => {
  const env = useAppOnRedis([ReportsController], 'express', {
    defaults: [{ name: 'perIp', algorithm: 'countLimit', limit: 3, period: 60 }],
  });
  const withRandomKeys = async (path: string) => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const headers = { 'x-api-key': `random-${path}-${i}` };
      statuses.push((await call(env.port, { path, headers })).status);
    }
    return statuses;
  };

  it('added to the IP default, the IP limit still holds', async () => {
    expect(await withRandomKeys('/added')).toEqual([200, 200, 200, 429, 429]);
  });

  it('replacing the IP default, random keys escape every limit', async () => {
    expect(await withRandomKeys('/replacing')).toEqual([200, 200, 200, 200, 200]);
  });
});
