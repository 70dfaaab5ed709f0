import { Body, Controller, Post } from '@nestjs/common';
import {
  ConcurrencyLimit,
  CountLimit,
  LeakyBucketLimit,
  LimitContext,
  RateLimit,
  SlidingWindowLimit,
} from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

/** An SMS batch costs one permit per number; `cost` sends a raw value, wrong ones included. */
function costOf(ctx: LimitContext): number {
  const { numbers, cost } = ctx.request.body ?? {};
  if (Array.isArray(numbers)) return numbers.length;
  return cost === 'nan' ? NaN : cost;
}

const HOUR = 3600;

@Controller('sms')
class SmsController {
  @Post('count')
  @CountLimit({ limit: 10, period: HOUR, permits: costOf })
  count(@Body() body: unknown) {
    return body;
  }

  @Post('log')
  @SlidingWindowLimit({ limit: 10, window: HOUR, permits: costOf })
  log() {
    return 'sent';
  }

  @Post('approximate')
  @SlidingWindowLimit({ limit: 10, window: HOUR, approximate: true, permits: costOf })
  approximate() {
    return 'sent';
  }

  @Post('leaky')
  @LeakyBucketLimit({ capacity: 10, rate: 1 / HOUR, permits: costOf })
  leaky() {
    return 'sent';
  }

  @Post('bucket')
  @RateLimit({ rate: 1 / HOUR, burst: 10 * HOUR, permits: costOf })
  bucket() {
    return 'sent';
  }

  @Post('slots')
  @ConcurrencyLimit({ max: 10, permits: costOf })
  slots() {
    return 'sent';
  }

  @Post('never')
  @CountLimit({ limit: 10, period: HOUR, permits: costOf })
  never() {
    return 'sent';
  }
}

const numbers = (n: number) => Array.from({ length: n }, (_, i) => `+1555000${i}`);

describe.each(PLATFORMS)('a cost from the request (%s)', (platform) => {
  const logger = new CaptureLogger();
  const env = useAppOnRedis([SmsController], platform, {}, logger);

  const send = (path: string, json: unknown) =>
    call(env.port, { method: 'POST', path: `/sms/${path}`, json });

  it.each(['count', 'log', 'approximate', 'leaky', 'bucket'])(
    '%s: batches of 4, 4, 4, 2, 1 on a limit of 10 answer 201, 201, 429, 201, 429',
    async (path) => {
      const replies = [];
      for (const n of [4, 4, 4, 2, 1]) replies.push(await send(path, { numbers: numbers(n) }));
      expect(replies.map((reply) => reply.status)).toEqual([201, 201, 429, 201, 429]);
      expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual([
        '6',
        '2',
        '2',
        '0',
        '0',
      ]);
      // A batch that would fit later gets a real Retry-After (an hour's refill or window).
      expect(Number(replies[2].headers['retry-after'])).toBeGreaterThan(0);
      expect(replies[2].body.retryAfter).toBe(Number(replies[2].headers['retry-after']));
    },
  );

  it('concurrency: a request of 11 slots on 10 is refused; one of 10 runs', async () => {
    const refused = await send('slots', { numbers: numbers(11) });
    expect(refused.status).toBe(429);
    // Not the 1 s hint of a busy concurrency limit: it can never pass.
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.body.retryAfter).toBe(-1);
    expect((await send('slots', { numbers: numbers(10) })).status).toBe(201);
    expect(await env.admin.zcard('concurrency:~SmsController.slots')).toBe(0);
  });

  it('refuses a batch above the limit with 429 and no Retry-After, counting nothing', async () => {
    const reply = await send('never', { numbers: numbers(11) });
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBeUndefined();
    expect(reply.body).toEqual({ statusCode: 429, message: 'Too Many Requests', retryAfter: -1 });
    expect(reply.headers['x-ratelimit-remaining']).toBe('10');
    expect((await send('never', { numbers: numbers(10) })).status).toBe(201);
  });

  it('counts nothing for a cost of 0, refused once the limit is spent', async () => {
    // The key is spent (10 of 10): an empty batch passes only while there is room for one.
    expect((await send('count', { numbers: [] })).status).toBe(429);
    expect(await env.admin.get('countLimit:~SmsController.count')).toBe('10');
  });

  it.each([
    [-1, '-1'],
    [1.5, '1.5'],
    ['nan', 'NaN'],
    ['3', "'3'"],
  ])(
    'answers 500 for a cost of %j, logs it once naming the limit, counts nothing',
    async (cost, shown) => {
      await afterStartUpCheck(env.admin);
      const before = await scriptCalls(env.admin);
      const reply = await send('never', { cost });
      expect(reply.status).toBe(500);
      expect(await scriptCalls(env.admin)).toBe(before);
      const line = new RegExp(
        `^@CountLimit on SmsController\\.never: option 'permits' must be an integer >= 0, got ${shown.replace('.', '\\.')} \\(resolved for this request: permits = ${shown.replace('.', '\\.')}\\)$`,
      );
      expect(logger.count('error', line)).toBe(1);
    },
  );
});
