// The guard's own cost per request on the in-memory store, for a handler whose options are
// all values and for the same limit with an option given as a function (issue 13: a
// static plan must do no extra work). Calls canActivate directly: no HTTP, no Redis.
import 'reflect-metadata';
import { Controller, Get, INestApplicationContext, Module } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Test } from '@nestjs/testing';
import { CountLimit, RateLimitGuard, RateLimiterModule } from 'nestjs-limiter';
import { inRoundOrder } from './stats';

const LIMIT = 1e9;

@Controller()
class GuardBenchController {
  @Get('static')
  @CountLimit({ limit: LIMIT, period: 60 })
  static() {}

  @Get('function')
  @CountLimit({ limit: () => LIMIT, period: 60 })
  resolved() {}
}

export type GuardVariant = 'static' | 'function';
export type GuardResults = Record<GuardVariant, number[]>;

const HANDLERS: Record<GuardVariant, () => void> = {
  static: GuardBenchController.prototype.static,
  function: GuardBenchController.prototype.resolved,
};

/** A request of its own per call: the guard decides a request once, and skips it after. */
function contextOf(variant: GuardVariant) {
  const request = { ip: '10.0.0.1', headers: {}, params: {}, query: {}, body: {} };
  const context = new ExecutionContextHost([request, {}], GuardBenchController, HANDLERS[variant]);
  context.setType('http');
  return context;
}

/** µs per canActivate over `calls` sequential calls (each one decision of the memory store). */
async function timeCalls(guard: RateLimitGuard, variant: GuardVariant, calls: number) {
  const contexts = Array.from({ length: calls }, () => contextOf(variant));
  const started = process.hrtime.bigint();
  for (const context of contexts) await guard.canActivate(context);
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
}

export async function guardBench(rounds: number, calls: number): Promise<GuardResults> {
  @Module({
    imports: [RateLimiterModule.forRoot({ headers: false })],
    controllers: [GuardBenchController],
  })
  class GuardBenchModule {}
  const moduleRef: INestApplicationContext = await Test.createTestingModule({
    imports: [GuardBenchModule],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  const guard = moduleRef.get(RateLimitGuard);
  const results: GuardResults = { static: [], function: [] };
  try {
    for (const variant of ['static', 'function'] as const) await timeCalls(guard, variant, calls);
    for (let round = 1; round <= rounds; round++) {
      for (const variant of inRoundOrder(['static', 'function'] as const, round)) {
        results[variant].push(await timeCalls(guard, variant, calls));
      }
    }
  } finally {
    await moduleRef.close();
  }
  return results;
}
