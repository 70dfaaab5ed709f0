import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { ConcurrencyLimit, CountLimit, RateLimitErrorDetail, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class QuoteController {
  @Get('quote')
  @CountLimit({ name: 'per-minute', limit: 1, period: 60 })
  quote() {
    return 'ok';
  }

  @Get('report')
  @SlidingWindowLimit({ name: 'hourly', limit: 1, window: 3600 })
  @CountLimit({ name: 'burst', limit: 1, period: 10 })
  report() {
    return 'ok';
  }

  @Get('export')
  @ConcurrencyLimit({ name: 'exports', max: 1 })
  async export() {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return 'ok';
  }
}

describe.each(PLATFORMS)('errorMessage on %s', (platform) => {
  describe('a fixed text', () => {
    const env = useAppOnRedis([QuoteController], platform, { errorMessage: 'Easy there' });

    it('is the message of every 429', async () => {
      expect((await call(env.port, { path: '/quote' })).status).toBe(200);
      const denied = await call(env.port, { path: '/quote' });
      expect(denied.status).toBe(429);
      expect(denied.body).toEqual({ statusCode: 429, message: 'Easy there', retryAfter: 60 });
    });
  });

  describe('with problemDetails', () => {
    const env = useAppOnRedis([QuoteController], platform, {
      errorMessage: 'Easy there',
      problemDetails: true,
    });

    it("is the problem document's detail", async () => {
      expect((await call(env.port, { path: '/quote' })).status).toBe(200);
      const denied = await call(env.port, { path: '/quote' });
      expect(denied.status).toBe(429);
      expect(denied.body).toMatchObject({ status: 429, detail: 'Easy there', retryAfter: 60 });
    });
  });

  describe('a function of the denial', () => {
    const seen: { handler: string; detail: RateLimitErrorDetail }[] = [];
    const env = useAppOnRedis([QuoteController], platform, {
      errorMessage: (context: ExecutionContext, detail: RateLimitErrorDetail) => {
        seen.push({ handler: context.getHandler().name, detail });
        return `${detail.name} allows ${detail.limit}: retry in ${detail.retryAfter}s`;
      },
    });

    it('names the limit with the longest wait, its quota and the retry time', async () => {
      expect((await call(env.port, { path: '/report' })).status).toBe(200);
      const denied = await call(env.port, { path: '/report' });
      expect(denied.status).toBe(429);
      expect(denied.body).toEqual({
        statusCode: 429,
        message: 'hourly allows 1: retry in 3600s',
        retryAfter: 3600,
      });
      expect(seen).toHaveLength(1);
      expect(seen[0].handler).toBe('report');
      expect(seen[0].detail).toMatchObject({
        name: 'hourly',
        limit: 1,
        retryAfter: 3600,
        violatedPolicies: ['burst', 'hourly'],
      });
      expect(seen[0].detail.retryAfterMs).toBeGreaterThan(3_599_000);
      expect(seen[0].detail.retryAfterMs).toBeLessThanOrEqual(3_600_000);
    });

    it('tells a concurrency limit by its slots', async () => {
      const [first, second] = await Promise.all([
        call(env.port, { path: '/export' }),
        new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
          call(env.port, { path: '/export' }),
        ),
      ]);
      expect(first.status).toBe(200);
      expect(second.status).toBe(429);
      expect(second.body.message).toMatch(/^exports allows 1: retry in \d+s$/);
    });
  });

  describe('a function that throws', () => {
    const logger = new CaptureLogger();
    const env = useAppOnRedis(
      [QuoteController],
      platform,
      {
        errorMessage: () => {
          throw new Error('no template');
        },
      },
      logger,
    );

    it('still answers 429 with the default message, and logs the mistake', async () => {
      expect((await call(env.port, { path: '/quote' })).status).toBe(200);
      const denied = await call(env.port, { path: '/quote' });
      expect(denied.status).toBe(429);
      expect(denied.body).toEqual({
        statusCode: 429,
        message: 'Too Many Requests',
        retryAfter: 60,
      });
      expect(
        logger.count('error', /^errorMessage threw \(no template\): the default is sent$/),
      ).toBe(1);
    });
  });
});
