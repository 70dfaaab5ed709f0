import {
  Controller,
  Get,
  INestApplication,
  LoggerService,
  Module,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import {
  CountLimit,
  MemoryStore,
  RateLimitGuard,
  RateLimiterModule,
  RateLimiterModuleOptions,
  SkipRateLimit,
} from 'nestjs-limiter';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { startRespProxy } from '../helpers/resp-proxy';

interface Recorded {
  warnings: string[];
  logger: LoggerService;
}

function recorder(): Recorded {
  const warnings: string[] = [];
  return {
    warnings,
    logger: {
      log: () => undefined,
      error: () => undefined,
      warn: (message: unknown) => warnings.push(String(message)),
    },
  };
}

async function boot(
  imports: unknown[],
  controllers: Function[],
  logger: LoggerService,
  providers: unknown[] = [],
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: imports as never[],
    controllers: controllers as never[],
    providers: providers as never[],
  })
    .setLogger(logger)
    .compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  return app;
}

describe('module options that cannot work fail start-up, naming the option', () => {
  it.each([
    [
      { prefix: 'api:' },
      "RateLimiterModule: unknown option 'prefix' (did you mean 'keyPrefix'?); the options are redis, store, keyPrefix, cache, onStoreError, storeTimeout, headers, resolveUser, resolveIp, global, onDecision, ipv6Subnet",
    ],
    [
      { redis: 'redis://127.0.0.1:1', store: new MemoryStore() },
      "RateLimiterModule: options 'redis' and 'store' exclude each other; pass only one",
    ],
  ])('%p', async (options, message) => {
    const start = Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options as RateLimiterModuleOptions)],
    }).compile();
    await expect(start).rejects.toThrow(message);
  });

  it('forRootAsync options are checked the same way', async () => {
    const start = Test.createTestingModule({
      imports: [
        RateLimiterModule.forRootAsync({
          useFactory: () => ({ prefix: 'api:' }) as RateLimiterModuleOptions,
        }),
      ],
    }).compile();
    await expect(start).rejects.toThrow("RateLimiterModule: unknown option 'prefix'");
  });
});

@Controller('plain')
class PlainController {
  @Get('forgotten')
  @CountLimit({ limit: 1, period: 60 })
  forgotten() {
    return 'ok';
  }

  @Get('guarded')
  @UseGuards(RateLimitGuard)
  @CountLimit({ limit: 1, period: 60 })
  guarded() {
    return 'ok';
  }

  @Get('skipped')
  @SkipRateLimit()
  @CountLimit({ limit: 1, period: 60 })
  skipped() {
    return 'ok';
  }

  @Get('free')
  free() {
    return 'ok';
  }
}

@Controller('guarded')
@UseGuards(RateLimitGuard)
class GuardedController {
  @Get()
  @CountLimit({ limit: 1, period: 60 })
  limited() {
    return 'ok';
  }
}

@WebSocketGateway()
class ForgottenGateway {
  @SubscribeMessage('chat')
  @CountLimit({ limit: 1, period: 60 })
  chat() {
    return 'ok';
  }
}

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class GuardedGateway {
  @SubscribeMessage('chat')
  @CountLimit({ limit: 1, period: 60 })
  chat() {
    return 'ok';
  }
}

const UNCOVERED =
  'PlainController.forgotten has rate limits, but no RateLimitGuard covers it (global: false, and no @UseGuards(RateLimitGuard) on the method or its class): its limits are not enforced';

describe('a decorated handler that no guard covers', () => {
  const limiterWarnings = (warnings: string[]) =>
    warnings.filter((warning) => warning.includes('RateLimitGuard'));

  it('with global: false logs one warning naming it, and none for covered handlers', async () => {
    const { warnings, logger } = recorder();
    const app = await boot(
      [RateLimiterModule.forRoot({ global: false })],
      [PlainController, GuardedController],
      logger,
    );
    expect(limiterWarnings(warnings)).toEqual([UNCOVERED]);
    await app.close();
  });

  it('with the global guard (the default) logs nothing', async () => {
    const { warnings, logger } = recorder();
    const app = await boot([RateLimiterModule.forRoot()], [PlainController], logger);
    expect(limiterWarnings(warnings)).toEqual([]);
    await app.close();
  });

  it('a gateway needs its own RateLimitGuard even with the global guard', async () => {
    const { warnings, logger } = recorder();
    const app = await boot([RateLimiterModule.forRoot()], [], logger, [
      ForgottenGateway,
      GuardedGateway,
    ]);
    expect(limiterWarnings(warnings)).toEqual([
      'ForgottenGateway.chat has rate limits, but Nest runs no global guard on WebSocket gateways: add @UseGuards(RateLimitGuard) to the gateway or the method, or its limits are not enforced',
    ]);
    await app.close();
  });

  it('with RateLimitGuard registered as the app’s own APP_GUARD logs nothing', async () => {
    const { warnings, logger } = recorder();
    const app = await boot(
      [RateLimiterModule.forRoot({ global: false })],
      [PlainController],
      logger,
      [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    );
    expect(limiterWarnings(warnings)).toEqual([]);
    await app.close();
  });
});

describe('a Redis that may evict keys', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  async function warningsWith(policy: string, maxmemory: string, url = redis.url) {
    const admin = redis.client();
    await admin.config('SET', 'maxmemory', maxmemory);
    await admin.config('SET', 'maxmemory-policy', policy);
    @Module({ imports: [RateLimiterModule.forRoot({ redis: url })] })
    class AppModule {}
    const { warnings, logger } = recorder();
    const app = await boot([AppModule], [], logger);
    // The module's connection opens once the app listens (start-up is over then).
    await app.listen(0, '127.0.0.1');
    // The check runs when the client is ready; a CONFIG round trip later it has spoken.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await app.close();
    return warnings.filter((warning) => warning.includes('maxmemory'));
  }

  it('logs one warning at start-up with maxmemory and allkeys-lru', async () => {
    expect(await warningsWith('allkeys-lru', '104857600')).toEqual([
      "Redis has maxmemory 104857600 with maxmemory-policy 'allkeys-lru': it may evict limit state under memory pressure and hand out permits early. Use 'noeviction' (or a 'volatile-*' policy on a Redis whose other keys have TTLs) for rate limiting",
    ]);
  });

  it('reads the policy from INFO memory where CONFIG is refused (managed Redis)', async () => {
    const proxy = await startRespProxy(redis.port, { config: true });
    try {
      expect(await warningsWith('volatile-lfu', '104857600', proxy.url)).toEqual([
        "Redis has maxmemory 104857600 with maxmemory-policy 'volatile-lfu': it may evict limit state under memory pressure and hand out permits early. Use 'noeviction' (or a 'volatile-*' policy on a Redis whose other keys have TTLs) for rate limiting",
      ]);
      expect(proxy.refused.config).toBeGreaterThan(0);
      expect(await warningsWith('noeviction', '104857600', proxy.url)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('logs nothing with noeviction, or without maxmemory', async () => {
    expect(await warningsWith('noeviction', '104857600')).toEqual([]);
    expect(await warningsWith('allkeys-lru', '0')).toEqual([]);
  });
});
