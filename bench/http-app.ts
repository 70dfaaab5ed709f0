// One Nest app on Express, in a process of its own: `node http-app.js <variant> <redisUrl>`.
// Sends { port } over IPC once listening, and its process.cpuUsage() when sent 'cpu'.
//   GET /hello  the measured route (limits high enough never to deny)
//   GET /flood  limited to one request a minute, for the flood section
import 'reflect-metadata';
import { applyDecorators, Controller, Get, Module, ModuleMetadata } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Throttle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { CountLimit, LimitType, RateLimiterModule } from 'nestjs-limiter';
import { runMain, serveOverIpc } from './app-process';

export const HTTP_VARIANTS = {
  none: 'no limiter',
  ours: 'nestjs-limiter guard (@CountLimit, module defaults)',
  throttler: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
};
export type HttpVariant = keyof typeof HTTP_VARIANTS;

function setUp(variant: HttpVariant, redisUrl: string) {
  const metadata: ModuleMetadata = { imports: [], providers: [] };
  const hello: MethodDecorator[] = [];
  const flood: MethodDecorator[] = [];
  if (variant === 'ours') {
    metadata.imports?.push(RateLimiterModule.forRoot({ redis: redisUrl }));
    hello.push(CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP }));
    flood.push(CountLimit({ limit: 1, period: 60, limitType: LimitType.IP }));
  } else if (variant === 'throttler') {
    metadata.imports?.push(
      ThrottlerModule.forRoot({
        throttlers: [{ name: 'default', ttl: 60_000, limit: 1e9 }],
        storage: new ThrottlerStorageRedisService(redisUrl),
      }),
    );
    metadata.providers?.push({ provide: APP_GUARD, useClass: ThrottlerGuard });
    flood.push(Throttle({ default: { ttl: 60_000, limit: 1 } }));
  }
  return { metadata, hello: applyDecorators(...hello), flood: applyDecorators(...flood) };
}

async function main(variant: HttpVariant, redisUrl: string) {
  if (!(variant in HTTP_VARIANTS)) throw new Error(`unknown variant ${variant}`);
  const { metadata, hello, flood } = setUp(variant, redisUrl);

  @Controller()
  class BenchController {
    @Get('hello')
    @hello
    hello() {
      return 'ok';
    }

    @Get('flood')
    @flood
    flood() {
      return 'ok';
    }
  }

  @Module({ ...metadata, controllers: [BenchController] })
  class AppModule {}

  await serveOverIpc(AppModule);
}

if (require.main === module) runMain(() => main(process.argv[2] as HttpVariant, process.argv[3]));
