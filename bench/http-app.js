'use strict';
// One Nest app on Express, in its own process: `node http-app.js <variant> <redisUrl>`.
// Sends { port } to the parent over IPC once listening, and its process.cpuUsage() when
// sent 'cpu'. Routes:
//   GET /hello  the measured route (limits high enough never to deny)
//   GET /flood  a route limited to one request a minute, for the flood section
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { APP_GUARD, NestFactory } = require('@nestjs/core');
const { default: Redis } = require('ioredis');

const [variant, redisUrl] = process.argv.slice(2);

function decorate(target, method, decorators) {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, method);
  Object.defineProperty(
    target.prototype,
    method,
    Reflect.decorate(decorators, target.prototype, method, descriptor),
  );
}

class BenchController {
  hello() {
    return 'ok';
  }
  flood() {
    return 'ok';
  }
}
Reflect.decorate([Controller()], BenchController);

const imports = [];
const providers = [];
const helloLimits = [];
const floodLimits = [];

if (variant === 'ours' || variant === 'ours-ioredis') {
  const { RateLimiterModule, RedisStore, CountLimit, LimitType } = require('../lib');
  // 'ours' passes the URL: the module creates its client and store with its own defaults.
  // 'ours-ioredis' is the same guard with the store's scripts sent through ioredis.
  const options =
    variant === 'ours'
      ? { redis: redisUrl }
      : {
          store: new RedisStore({
            client: new Redis(redisUrl, { maxRetriesPerRequest: 1 }),
            ownsClient: true,
            dedicatedConnection: false,
          }),
        };
  imports.push(RateLimiterModule.forRoot(options));
  helloLimits.push(CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP }));
  floodLimits.push(CountLimit({ limit: 1, period: 60, limitType: LimitType.IP }));
} else if (variant === 'throttler') {
  const { ThrottlerModule, ThrottlerGuard, Throttle } = require('@nestjs/throttler');
  const { ThrottlerStorageRedisService } = require('@nest-lab/throttler-storage-redis');
  imports.push(
    ThrottlerModule.forRoot({
      throttlers: [{ name: 'default', ttl: 60_000, limit: 1e9 }],
      storage: new ThrottlerStorageRedisService(redisUrl),
    }),
  );
  providers.push({ provide: APP_GUARD, useClass: ThrottlerGuard });
  floodLimits.push(Throttle({ default: { ttl: 60_000, limit: 1 } }));
} else if (variant !== 'none') {
  throw new Error(`unknown variant ${variant}`);
}

decorate(BenchController, 'hello', [Get('hello'), ...helloLimits]);
decorate(BenchController, 'flood', [Get('flood'), ...floodLimits]);

class AppModule {}
Reflect.decorate([Module({ imports, controllers: [BenchController], providers })], AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  process.send({ port: app.getHttpServer().address().port });
  process.on('message', async (message) => {
    // The parent reads this before and after a run: the app's CPU per request served.
    if (message === 'cpu') process.send(process.cpuUsage());
    if (message === 'close') {
      await app.close();
      process.exit(0);
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
