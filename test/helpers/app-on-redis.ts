import { INestApplication, LoggerService, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { Platform, startApp } from './http';
import { RedisServer, startRedisServer } from './redis-server';

/**
 * The suites' storeTimeout unless they choose one: exact counts hold only while Redis answers in
 * time, and a starved machine must not make a test about something else fail open ('allow').
 * The suites about timeouts set their own.
 */
export const PATIENT_STORE_TIMEOUT_MS = 2000;

/** One redis-server and one app on it, for a describe block; filled in by `beforeAll`. */
export interface AppOnRedis {
  redis: RedisServer;
  /** A client of the test's own, for inspecting keys. */
  admin: Redis;
  app: INestApplication;
  port: number;
}

/** Registers the hooks that start a redis-server and the controllers on it, and stop both. */
export function useAppOnRedis(
  controllers: any[],
  platform: Platform,
  options: Omit<RateLimiterModuleOptions, 'redis'> = {},
  /** Where the app logs; none by default. */
  logger: LoggerService | false = false,
): AppOnRedis {
  const env = {} as AppOnRedis;
  beforeAll(async () => {
    env.redis = await startRedisServer();
    env.admin = env.redis.client();
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          storeTimeout: PATIENT_STORE_TIMEOUT_MS,
          ...options,
          redis: env.redis.url,
        }),
      ],
      controllers,
    })
    class AppModule {}
    Object.assign(env, await startApp(AppModule, platform, logger));
  });
  afterAll(async () => {
    await env.app?.close();
    await env.redis?.stop();
  });
  return env;
}
