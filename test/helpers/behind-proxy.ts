import { INestApplication, LoggerService, Module } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { Platform } from './http';

/** Boots the controllers behind a trusted proxy, so X-Forwarded-For is the client address. */
export async function startBehindProxy(
  platform: Platform,
  options: RateLimiterModuleOptions,
  controllers: any[],
  logger: LoggerService | false = false,
): Promise<{ app: INestApplication; port: number }> {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  let app: INestApplication;
  if (platform === 'fastify') {
    app = moduleRef.createNestApplication<NestFastifyApplication>(
      new FastifyAdapter({ trustProxy: true }),
      { logger },
    );
  } else {
    const express = moduleRef.createNestApplication<NestExpressApplication>({ logger });
    express.set('trust proxy', true);
    app = express;
  }
  await app.listen(0, '127.0.0.1');
  return { app, port: app.getHttpServer().address().port as number };
}
