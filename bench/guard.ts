// The guard's own cost per request on the in-memory store, for a handler whose options are
// all values and for the same limit with an option given as a function (issue 13: a
// static plan must do no extra work), and per tenant: 10,000 tenants' keys with a limit from
// each tenant's plan, the plans 10 or 10,000 distinct values, beside one static limit on the
// same keys. Values travel as arguments, so 10,000 plans must cost what 10 do; the static
// row tells what the values cost at all. Calls canActivate directly: no HTTP, no Redis.
import 'reflect-metadata';
import { Controller, Get, INestApplicationContext, Module } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Test } from '@nestjs/testing';
import {
  CountLimit,
  LimitContext,
  RateLimitGuard,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from 'nestjs-limiter';
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

  @Get('tenants10')
  @CountLimit({ limit: planOf(10), period: 60, key: 'tenant:#{query.tenant}' })
  tenants10() {}

  @Get('tenants10k')
  @CountLimit({ limit: planOf(10_000), period: 60, key: 'tenant:#{query.tenant}' })
  tenants10k() {}

  @Get('keys10k')
  @CountLimit({ limit: LIMIT, period: 60, key: 'tenant:#{query.tenant}' })
  keys10k() {}
}

/** Each tenant's limit, from its plan: one of `plans` distinct values. */
function planOf(plans: number) {
  return (ctx: LimitContext): number =>
    LIMIT - (Number((ctx.request as { query: { tenant: string } }).query.tenant) % plans);
}

/** Distinct tenants each variant's requests come from, in turn. */
const TENANTS: Partial<Record<GuardVariant, number>> = {
  tenants10: 10_000,
  tenants10k: 10_000,
  keys10k: 10_000,
};

export const GUARD_VARIANTS = ['static', 'function', 'tenants10', 'tenants10k', 'keys10k'] as const;
export type GuardVariant = (typeof GUARD_VARIANTS)[number];
export type GuardResults = Partial<Record<GuardVariant, number[]>> &
  Record<'static' | 'function', number[]> & {
    /** The plans' rows on Redis, as Node CPU µs per request; absent from earlier runs. */
    onRedis?: Partial<Record<GuardVariant, number[]>>;
  };
/** The rows that compare 10 plans with 10,000 on the same keys. */
export const PLAN_VARIANTS = ['tenants10', 'tenants10k', 'keys10k'] as const;

const HANDLERS: Record<GuardVariant, () => void> = {
  static: GuardBenchController.prototype.static,
  function: GuardBenchController.prototype.resolved,
  tenants10: GuardBenchController.prototype.tenants10,
  tenants10k: GuardBenchController.prototype.tenants10k,
  keys10k: GuardBenchController.prototype.keys10k,
};

/** A request of its own per call: the guard decides a request once, and skips it after. */
function contextOf(variant: GuardVariant, i: number) {
  const tenant = String(i % (TENANTS[variant] ?? 1));
  const request = { ip: '10.0.0.1', headers: {}, params: {}, query: { tenant }, body: {} };
  const context = new ExecutionContextHost([request, {}], GuardBenchController, HANDLERS[variant]);
  context.setType('http');
  return context;
}

/** Requests made ahead of each timed stretch: few, so that each dies soon, as a served one does. */
const CHUNK = 500;
/** Decisions in flight on Redis: what a busy server sends in one engine call. */
const IN_FLIGHT = 200;

/** µs per canActivate over `calls` sequential calls (each one decision of the memory store). */
async function timeCalls(guard: RateLimitGuard, variant: GuardVariant, calls: number) {
  let elapsed = 0n;
  for (let first = 0; first < calls; first += CHUNK) {
    const contexts = Array.from({ length: CHUNK }, (_, i) => contextOf(variant, first + i));
    const started = process.hrtime.bigint();
    for (const context of contexts) await guard.canActivate(context);
    elapsed += process.hrtime.bigint() - started;
  }
  return Number(elapsed) / 1000 / calls;
}

/** Node CPU µs per canActivate on Redis, `IN_FLIGHT` at a time: waiting on Redis costs no CPU. */
async function cpuOfCalls(guard: RateLimitGuard, variant: GuardVariant, calls: number) {
  const before = process.cpuUsage();
  for (let first = 0; first < calls; first += IN_FLIGHT) {
    const contexts = Array.from({ length: IN_FLIGHT }, (_, i) => contextOf(variant, first + i));
    await Promise.all(contexts.map((context) => guard.canActivate(context)));
  }
  const { user, system } = process.cpuUsage(before);
  return (user + system) / calls;
}

type Measure = (guard: RateLimitGuard, variant: GuardVariant, calls: number) => Promise<number>;

/** Each variant once to warm up, then `rounds` interleaved rounds of `calls` each. */
async function measureRounds(
  options: RateLimiterModuleOptions,
  variants: readonly GuardVariant[],
  measure: Measure,
  { rounds, calls }: { rounds: number; calls: number },
): Promise<Partial<Record<GuardVariant, number[]>>> {
  @Module({
    imports: [RateLimiterModule.forRoot({ ...options, headers: false })],
    controllers: [GuardBenchController],
  })
  class GuardBenchModule {}
  const moduleRef: INestApplicationContext = await Test.createTestingModule({
    imports: [GuardBenchModule],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  const guard = moduleRef.get(RateLimitGuard);
  const results = Object.fromEntries(variants.map((variant) => [variant, [] as number[]]));
  try {
    for (const variant of variants) await measure(guard, variant, calls);
    for (let round = 1; round <= rounds; round++) {
      for (const variant of inRoundOrder(variants, round)) {
        results[variant].push(await measure(guard, variant, calls));
      }
    }
  } finally {
    await moduleRef.close();
  }
  return results;
}

export async function guardBench(
  rounds: number,
  calls: number,
): Promise<Omit<GuardResults, 'onRedis'>> {
  const inMemory = await measureRounds({}, GUARD_VARIANTS, timeCalls, { rounds, calls });
  return inMemory as Omit<GuardResults, 'onRedis'>;
}

/** The plans' rows on Redis: Node CPU per request, where the params made per request are formatted. */
export function plansOnRedisBench(
  url: string,
  rounds: number,
  calls: number,
): Promise<Partial<Record<GuardVariant, number[]>>> {
  return measureRounds({ redis: url }, PLAN_VARIANTS, cpuOfCalls, { rounds, calls });
}
