// The guard's own cost per request on Express (`npm run bench -- --guard-express`): Node CPU
// µs per canActivate, called directly on Express's own request and response objects (Node's
// IncomingMessage and ServerResponse under the app's prototypes, as Express serves them), for
// one `@CountLimit` per IP on Redis, the route of the HTTP section. No HTTP in between, so
// what the guard's path costs is not lost in what the rest of the app costs. Two shapes:
//   direct   no proxy, `trust proxy` off: the HTTP section's requests
//   proxied  `trust proxy: 'loopback'`, through one proxy that sets X-Forwarded-For
// and the direct shape again on the memory store.
import 'reflect-metadata';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { CountLimit, LimitType, RateLimitGuard, RateLimiterModule } from 'nestjs-limiter';
import { BenchRedis } from './redis';
import { inRoundOrder } from './stats';

@Controller()
class GuardExpressController {
  @Get('hello')
  @CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP })
  hello() {
    return 'ok';
  }
}

interface Shape {
  trustProxy: unknown;
  remoteAddress: string;
  headers: Record<string, string>;
}

export const GUARD_EXPRESS_SHAPES = {
  direct: { trustProxy: false, remoteAddress: '10.0.0.1', headers: {} },
  proxied: {
    trustProxy: 'loopback',
    remoteAddress: '127.0.0.1',
    headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.2' },
  },
} satisfies Record<string, Shape>;
export type GuardExpressShape = keyof typeof GUARD_EXPRESS_SHAPES;

/**
 * A socket that only says where it comes from (all Express reads of it): a real one would
 * make the bench's own garbage, collected while the guard is timed.
 */
function socketFrom(remoteAddress: string): Socket {
  return { remoteAddress } as Socket;
}

/** One request as Express hands it to Nest's route: its own objects, its app's prototypes. */
function contextOf(express: any, shape: Shape, i: number): ExecutionContextHost {
  const request = new IncomingMessage(socketFrom(shape.remoteAddress));
  request.method = 'GET';
  request.url = '/hello';
  request.headers = { host: 'bench', ...shape.headers, 'x-request': String(i) };
  const response = new ServerResponse(request);
  Object.setPrototypeOf(request, express.request);
  Object.setPrototypeOf(response, express.response);
  Object.assign(request, { res: response });
  Object.assign(response, { req: request });
  const context = new ExecutionContextHost(
    [request, response, () => undefined],
    GuardExpressController,
    GuardExpressController.prototype.hello,
  );
  context.setType('http');
  return context;
}

/** Requests made ahead of each timed stretch; each stretch sends them IN_FLIGHT at a time. */
const CHUNK = 2_000;
/** Decisions in flight: the HTTP section's connections. */
const IN_FLIGHT = 50;

/** Node CPU µs per canActivate over `calls` calls; building the requests is not counted. */
async function cpuPerCall(
  guard: RateLimitGuard,
  express: any,
  shape: Shape,
  calls: number,
): Promise<number> {
  express.set('trust proxy', shape.trustProxy);
  let cpuUs = 0;
  for (let first = 0; first < calls; first += CHUNK) {
    const contexts = Array.from({ length: CHUNK }, (_, i) => contextOf(express, shape, first + i));
    const before = process.cpuUsage();
    for (let at = 0; at < contexts.length; at += IN_FLIGHT) {
      const batch = contexts.slice(at, at + IN_FLIGHT);
      const allowed = await Promise.all(batch.map((context) => guard.canActivate(context)));
      if (!allowed.every(Boolean)) throw new Error('the bench route denied a request');
    }
    const { user, system } = process.cpuUsage(before);
    cpuUs += user + system;
  }
  return cpuUs / calls;
}

/** An app on Redis, or on the memory store (no `redisUrl`). */
async function appOn(redisUrl?: string): Promise<INestApplication> {
  @Module({
    imports: [RateLimiterModule.forRoot({ redis: redisUrl })],
    controllers: [GuardExpressController],
  })
  class GuardExpressModule {}
  const app = await NestFactory.create(GuardExpressModule, { logger: false });
  await app.init();
  return app;
}

/**
 * The rows: each shape on Redis, and the direct one on the memory store, where no socket
 * write or reply parsing hides what the guard's own path costs.
 */
const ROWS = [
  { row: 'direct', shape: 'direct', store: 'redis' },
  { row: 'proxied', shape: 'proxied', store: 'redis' },
  { row: 'direct in memory', shape: 'direct', store: 'memory' },
] as const;
export type GuardExpressRow = (typeof ROWS)[number]['row'];

/** Each row once to warm up, then `rounds` interleaved rounds of `calls` each. */
export async function guardExpressBench(
  redis: BenchRedis,
  { rounds, calls }: { rounds: number; calls: number },
): Promise<Record<GuardExpressRow, number[]>> {
  const apps = { redis: await appOn(redis.url), memory: await appOn() };
  const measure = ({ shape, store }: (typeof ROWS)[number]) =>
    cpuPerCall(
      apps[store].get(RateLimitGuard),
      apps[store].getHttpAdapter().getInstance(),
      GUARD_EXPRESS_SHAPES[shape],
      calls,
    );
  const results = Object.fromEntries(ROWS.map(({ row }) => [row, [] as number[]])) as Record<
    GuardExpressRow,
    number[]
  >;
  try {
    for (const row of ROWS) await measure(row);
    for (let round = 1; round <= rounds; round++) {
      for (const row of inRoundOrder(ROWS, round)) {
        await redis.onEachMaster('FLUSHALL');
        results[row.row].push(await measure(row));
      }
    }
  } finally {
    await Promise.all(Object.values(apps).map((app) => app.close()));
  }
  return results;
}
