import 'reflect-metadata';
import { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

/**
 * Starts the sample app from its environment: REDIS_URL (the limits are shared by every
 * instance; without it they are in memory), PORT (default 3000) and HOST (default every
 * interface; `127.0.0.1` keeps it on this machine, a container wants `0.0.0.0`).
 */
export async function bootstrap(
  env: NodeJS.ProcessEnv = process.env,
  options?: NestApplicationOptions,
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.register({ redis: env.REDIS_URL }), options);
  app.enableShutdownHooks();
  const port = Number(env.PORT ?? 3000);
  if (env.HOST) await app.listen(port, env.HOST);
  else await app.listen(port);
  const { port: listening } = app.getHttpServer().address();
  console.log(
    `sample app on http://${env.HOST ?? 'localhost'}:${listening}/limiter/rate (${env.REDIS_URL ? 'Redis' : 'in-memory store'})`,
  );
  return app;
}

if (require.main === module) void bootstrap();
