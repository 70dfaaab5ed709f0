/**
 * An app with one leased counter (`@CountLimit({ lease })`), in a process of its own, for
 * fault tests of leases: bursts, Redis frozen, its own event loop stalled. Env: REDIS_URL;
 * LIMIT (per minute, default 300), LEASE (default 20), ON_STORE_ERROR ('allow' | 'deny',
 * default 'allow'). Routes: `/lease?round=<r>` (the limit, one key per round),
 * `/stall?ms=<n>` (holds the event loop that long, as a CPU-bound request does),
 * `/store-errors` (the store-error events so far). Prints `PORT <n>` once it listens.
 */
import 'reflect-metadata';
import { Controller, Get, Module, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CountLimit, RateLimiterModule } from '../../../src';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
let storeErrors = 0;

@Controller()
class LeaseBurstController {
  @Get('lease')
  @CountLimit({
    limit: Number(env('LIMIT', '300')),
    period: 60,
    lease: Number(env('LEASE', '20')),
    key: 'lease:#{query.round}',
  })
  lease() {
    return 'ok';
  }

  @Get('stall')
  stall(@Query('ms') ms: string) {
    const until = performance.now() + Number(ms);
    while (performance.now() < until);
    return 'stalled';
  }

  @Get('store-errors')
  storeErrors() {
    return String(storeErrors);
  }
}

@Module({
  imports: [
    RateLimiterModule.forRoot({
      redis: process.env.REDIS_URL,
      onStoreError: env('ON_STORE_ERROR', 'allow') as 'allow' | 'deny',
      onDecision: (event) => {
        if (event.outcome === 'store-error') storeErrors++;
      },
    }),
  ],
  controllers: [LeaseBurstController],
})
class LeaseBurstModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(LeaseBurstModule, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`PORT ${app.getHttpServer().address().port}\n`);
}

void main();
