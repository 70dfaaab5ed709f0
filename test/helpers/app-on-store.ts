import { INestApplication, LoggerService, Module } from '@nestjs/common';
import { MemoryStore, RateLimiterModule } from '../../src';
import { startApp } from './http';
import { RedisServer, startRedisServer } from './redis-server';

/** One app on a real redis-server or on a MemoryStore, for a describe block; filled in by `beforeAll`. */
export interface AppOnStore {
  app: INestApplication;
  port: number;
}

/** Registers the hooks that start the store (and its redis-server) and the controllers on it, and stop both. */
export function useAppOnStore(
  storeName: 'redis' | 'memory',
  controllers: any[],
  /** Where the app logs; none by default. */
  logger: LoggerService | false = false,
): AppOnStore {
  const env = {} as AppOnStore;
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    if (storeName === 'redis') redis = await startRedisServer();
    @Module({
      imports: [
        RateLimiterModule.forRoot(redis ? { redis: redis.url } : { store: new MemoryStore() }),
      ],
      controllers,
    })
    class AppModule {}
    Object.assign(env, await startApp(AppModule, 'express', logger));
  });
  afterAll(async () => {
    await env.app?.close();
    await redis?.stop();
  });
  return env;
}
