/**
 * An app with one limit of 20 per algorithm, in a process of its own, for burst tests: the
 * requests' load falls on its event loop alone, as in production. Env: REDIS_URL, PLATFORM
 * ('express' | 'fastify'), STORE_TIMEOUT (ms, optional). `/store-errors`: the store-error
 * events so far, by message (JSON). Prints `PORT <n>` once it listens.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { CountLimit, RateLimit, RateLimiterModule, SlidingWindowLimit } from '../../../src';

const BURST_LIMIT = 20;
const storeErrors: Record<string, number> = {};

@Controller()
class BurstController {
  @Get('count')
  @CountLimit({ limit: BURST_LIMIT, period: 60, key: 'count:#{query.round}' })
  count() {
    return 'ok';
  }

  @Get('bucket')
  // One permit back in 3 minutes: however long a burst takes on a starved machine, none returns.
  @RateLimit({ rate: BURST_LIMIT / 3600, burst: 3600, key: 'bucket:#{query.round}' })
  bucket() {
    return 'ok';
  }

  @Get('log')
  @SlidingWindowLimit({ limit: BURST_LIMIT, window: 60, key: 'log:#{query.round}' })
  log() {
    return 'ok';
  }

  @Get('store-errors')
  storeErrors() {
    return storeErrors;
  }
}

@Module({
  imports: [
    RateLimiterModule.forRoot({
      redis: process.env.REDIS_URL,
      ...(process.env.STORE_TIMEOUT ? { storeTimeout: Number(process.env.STORE_TIMEOUT) } : {}),
      onDecision: (event) => {
        if (event.outcome !== 'store-error') return;
        const message = String((event.error as Error | undefined)?.message);
        storeErrors[message] = (storeErrors[message] ?? 0) + 1;
      },
    }),
  ],
  controllers: [BurstController],
})
class BurstModule {}

async function main(): Promise<void> {
  const app =
    process.env.PLATFORM === 'fastify'
      ? await NestFactory.create(BurstModule, new FastifyAdapter(), { logger: ['error', 'warn'] })
      : await NestFactory.create(BurstModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`PORT ${app.getHttpServer().address().port}\n`);
}

void main();
