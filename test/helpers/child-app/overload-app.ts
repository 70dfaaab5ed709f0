/**
 * An app whose handlers call a simulated downstream of fixed capacity, in a process of its
 * own, for the overload guard's load tests and bench. Env: SERVERS (K), SERVICE_MS (S),
 * STATIC_MAX (the static limit's `max`). Prints `PORT <n>` once it listens.
 *   GET /adaptive  @AdaptiveConcurrencyLimit, the class from the x-priority header
 *   GET /static    @ConcurrencyLimit({ max: STATIC_MAX }) on one key
 *   GET /none      no guard
 *   PUT /downstream?serviceMs=<ms>  changes every downstream's service time
 *   GET /gates     the overload gates' state (internal: OverloadGates)
 * Each route has a downstream of its own.
 */
import 'reflect-metadata';
import { Controller, Get, Module, Put, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  AdaptiveConcurrencyLimit,
  ConcurrencyLimit,
  RateLimiterModule,
  SkipRateLimit,
} from '../../../src';
import { Downstream } from '../downstream';
import { OverloadGates } from '../../../src/compile/overload-gates';

const servers = Number(process.env.SERVERS ?? 10);
const serviceMs = Number(process.env.SERVICE_MS ?? 20);
const downstreams = {
  adaptive: new Downstream(servers, serviceMs),
  static: new Downstream(servers, serviceMs),
  none: new Downstream(servers, serviceMs),
};

@Controller()
class OverloadController {
  constructor(private readonly gates: OverloadGates) {}

  @Get('adaptive')
  @AdaptiveConcurrencyLimit({ priority: '#{headers["x-priority"]}' })
  async adaptive() {
    await downstreams.adaptive.call();
    return 'ok';
  }

  @Get('static')
  @ConcurrencyLimit({ max: Number(process.env.STATIC_MAX ?? 40), key: 'downstream' })
  async static() {
    await downstreams.static.call();
    return 'ok';
  }

  @Get('none')
  async none() {
    await downstreams.none.call();
    return 'ok';
  }

  /** The overload gates' state, the limit's history included. */
  @Get('gates')
  @SkipRateLimit()
  gateStates() {
    return this.gates.snapshots();
  }

  @Put('downstream')
  @SkipRateLimit()
  slowDown(@Query('serviceMs') ms: string) {
    for (const downstream of Object.values(downstreams)) downstream.serviceMs = Number(ms);
    return 'ok';
  }
}

@Module({
  imports: [RateLimiterModule.forRoot({ headers: false })],
  controllers: [OverloadController],
})
class AppModule {}

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  console.log(`PORT ${app.getHttpServer().address().port}`);
}

void main();
