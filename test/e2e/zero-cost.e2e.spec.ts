import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ConcurrencyLimit,
  CountLimit,
  LeakyBucketLimit,
  LimitContext,
  LimitType,
  RateLimit,
  SlidingWindowLimit,
} from '../../src';
import { useAppOnStore } from '../helpers/app-on-store';
import { call } from '../helpers/http';

/** The cost a request asks for in its query: `?n=3`. */
const asked = (ctx: LimitContext) => Number((ctx.request as { query: { n: string } }).query.n);

/** Limits of 2 an hour on each keyed algorithm, each request costing `?n=`. */
@Controller('cost')
class CostController {
  @Get('token')
  @RateLimit({ rate: 1 / 3600, capacity: 2, permits: asked, limitType: LimitType.IP })
  token() {
    return 'ok';
  }

  @Get('count')
  @CountLimit({ limit: 2, period: 3600, permits: asked, limitType: LimitType.IP })
  count() {
    return 'ok';
  }

  @Get('log')
  @SlidingWindowLimit({ limit: 2, window: 3600, permits: asked, limitType: LimitType.IP })
  log() {
    return 'ok';
  }

  @Get('approx')
  @SlidingWindowLimit({
    approximate: true,
    limit: 2,
    window: 3600,
    permits: asked,
    limitType: LimitType.IP,
  })
  approx() {
    return 'ok';
  }

  @Get('leaky')
  @LeakyBucketLimit({ capacity: 2, rate: 1 / 3600, permits: asked, limitType: LimitType.IP })
  leaky() {
    return 'ok';
  }

  /** The README's batch: 3 messages an hour per client, a batch costing its numbers. */
  @Post('sms')
  @CountLimit({
    limit: 3,
    period: 3600,
    permits: (ctx) => (ctx.request.body as { numbers: string[] }).numbers.length,
    limitType: LimitType.IP,
  })
  sms(@Body() body: { numbers: string[] }) {
    return { sent: body.numbers.length };
  }

  /** 5 in flight, each request said to cost 0: it still holds a slot while it runs. */
  @Get('slots')
  @ConcurrencyLimit({ key: 'free-slots', max: 5, permits: 0 })
  async slots(@Query('ms') ms: string) {
    await new Promise((resolve) => setTimeout(resolve, Number(ms)));
    return 'ok';
  }
}

describe.each(['redis', 'memory'] as const)('a request that costs 0 (%s store)', (storeName) => {
  const env = useAppOnStore(storeName, [CostController]);

  it.each(['token', 'count', 'log', 'approx', 'leaky'])(
    '%s: passes while the key has room, and not once the limit is spent',
    async (route) => {
      const status = async (n: number, ip: string) =>
        (await call(env.port, { path: `/cost/${route}?n=${n}`, localAddress: ip })).status;
      const ip = '127.0.0.2';
      expect([await status(0, ip), await status(1, ip), await status(0, ip)]).toEqual([
        200, 200, 200,
      ]);
      expect([await status(1, ip), await status(0, ip), await status(0, ip)]).toEqual([
        200, 429, 429,
      ]);
      // Another client's key still has room.
      expect(await status(0, '127.0.0.3')).toBe(200);
    },
  );

  it("the README's batch: an empty batch is refused once the limit is spent", async () => {
    const send = async (numbers: string[]) =>
      (await call(env.port, { method: 'POST', path: '/cost/sms', json: { numbers } })).status;
    expect(await send([])).toBe(201);
    expect(await send(['1', '2', '3'])).toBe(201);
    expect([await send([]), await send(['4'])]).toEqual([429, 429]);
  });

  it('@ConcurrencyLimit with permits 0: 5 of 20 run at once on max 5', async () => {
    const statuses = await Promise.all(
      Array.from(
        { length: 20 },
        async () => (await call(env.port, { path: '/cost/slots?ms=600' })).status,
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    // The slots were given back when the work ended.
    expect((await call(env.port, { path: '/cost/slots?ms=0' })).status).toBe(200);
  });
});
