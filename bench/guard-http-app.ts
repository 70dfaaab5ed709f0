// One Nest app on Express for the guard's cost per HTTP request, in a process of its own:
// `node guard-http-app.js <memory|redis> <headers: legacy|ietf|both|false> [redisUrl]`.
// Sends { port } over IPC once listening, and its process.cpuUsage() when sent 'cpu'.
//   GET /none   no limit: the bare app
//   GET /count  @CountLimit by IP (high enough never to deny)
//   GET /method @CountLimit by METHOD: the same without reading the client address
//   GET /rate   @RateLimit by IP (the token bucket; never denies either)
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { CountLimit, HeadersMode, LimitType, RateLimit, RateLimiterModule } from 'nestjs-limiter';
import { runMain, serveOverIpc } from './app-process';

export const GUARD_ROUTES = ['none', 'count', 'method', 'rate'] as const;
export type GuardRoute = (typeof GUARD_ROUTES)[number];

@Controller()
class GuardCostController {
  @Get('none')
  none() {
    return 'ok';
  }

  @Get('count')
  @CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP })
  count() {
    return 'ok';
  }

  @Get('method')
  @CountLimit({ limit: 1e9, period: 60 })
  method() {
    return 'ok';
  }

  @Get('rate')
  @RateLimit({ rate: 1e6, capacity: 1e9, limitType: LimitType.IP })
  rate() {
    return 'ok';
  }
}

function headersMode(text: string): HeadersMode {
  return text === 'false' ? false : (text as HeadersMode);
}

async function main(store: string, headers: string, redisUrl?: string) {
  const redis = store === 'redis' ? redisUrl : undefined;
  if (store === 'redis' && !redis) throw new Error('the redis app needs a URL');
  @Module({
    imports: [RateLimiterModule.forRoot({ redis, headers: headersMode(headers) })],
    controllers: [GuardCostController],
  })
  class GuardCostModule {}

  await serveOverIpc(GuardCostModule);
}

if (require.main === module) runMain(() => main(process.argv[2], process.argv[3], process.argv[4]));
