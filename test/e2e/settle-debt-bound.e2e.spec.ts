import { Controller, Get, Query } from '@nestjs/common';
import {
  CountLimit,
  LeakyBucketLimit,
  LimitType,
  RateLimit,
  SettleFunction,
  SlidingWindowLimit,
} from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { useAppOnStore } from '../helpers/app-on-store';
import { call } from '../helpers/http';

/** The cost the handler reports, as large as a settle may say: `?used=`. */
const used: SettleFunction = (_ctx, { result }) => (result as { used: number }).used;

/** Two permits, one a second, each settling to what `?used=` says. */
@Controller('debt')
class DebtController {
  @Get('token')
  @RateLimit({ rate: 1, capacity: 2, settle: used, limitType: LimitType.IP })
  token(@Query('used') cost: string) {
    return { used: Number(cost) };
  }

  @Get('leaky')
  @LeakyBucketLimit({ capacity: 2, rate: 1, settle: used, limitType: LimitType.IP })
  leaky(@Query('used') cost: string) {
    return { used: Number(cost) };
  }

  @Get('count')
  @CountLimit({ limit: 2, period: 60, settle: used, limitType: LimitType.IP })
  count(@Query('used') cost: string) {
    return { used: Number(cost) };
  }

  @Get('log')
  @SlidingWindowLimit({ limit: 2, window: 60, settle: used, limitType: LimitType.IP })
  log(@Query('used') cost: string) {
    return { used: Number(cost) };
  }
}

/** 3650 days, the longest debt a settle leaves, in whole seconds. */
const HORIZON_SECONDS = '315360000';

describe.each(['redis', 'memory'] as const)('a settle far above the limit (%s store)', (name) => {
  const logger = new CaptureLogger();
  const env = useAppOnStore(name, [DebtController], logger);

  /** A client of its own per case, so each starts on a fresh key. */
  let client = 10;
  const nextIp = () => `127.0.0.${++client}`;

  it.each([
    ['token', 1e14],
    ['token', Number.MAX_SAFE_INTEGER],
    ['leaky', 1e14],
    ['leaky', Number.MAX_SAFE_INTEGER],
  ])(
    '%s bucket, settled at %d: charged up to 3650 days of debt, never dropped',
    async (route, cost) => {
      const ip = nextIp();
      const hit = (usedNow: number) =>
        call(env.port, { path: `/debt/${route}?used=${usedNow}`, localAddress: ip });
      // Reserves 1, then settles at `cost`: the debt is 3650 days, on both stores.
      expect((await hit(cost)).status).toBe(200);
      const retryAfter = await eventually(
        async () => (await hit(1)).headers['retry-after'],
        HORIZON_SECONDS,
        3000,
      );
      expect(retryAfter).toBe(HORIZON_SECONDS);
      expect(logger.count('warn', /Could not charge/)).toBe(0);
    },
  );

  it.each(['count', 'log'])(
    '%s: a settle of 2^53 - 1 leaves the key denied for its window',
    async (route) => {
      const ip = nextIp();
      const first = await call(env.port, {
        path: `/debt/${route}?used=${Number.MAX_SAFE_INTEGER}`,
        localAddress: ip,
      });
      expect(first.status).toBe(200);
      const status = await eventually(
        async () =>
          (await call(env.port, { path: `/debt/${route}?used=1`, localAddress: ip })).status,
        429,
        3000,
      );
      expect(status).toBe(429);
      expect(logger.count('warn', /Could not charge/)).toBe(0);
    },
  );
});
