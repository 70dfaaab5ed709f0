/**
 * An app on Redis that serves, denies, resets a key through the factory (a broadcast), then
 * closes and does nothing more: the process must exit by itself, so `app.close()` must leave
 * no socket or timer of the library's. Env: REDIS_URL; PLATFORM 'express' | 'fastify';
 * ADMIN '1' adds the admin module (its live-settings poller). Prints `CLOSED` once closed.
 */
import 'reflect-metadata';
import { request } from 'node:http';
import { CanActivate, Controller, Get, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  CountLimit,
  RateLimit,
  RateLimiterAdminModule,
  RateLimiterFactory,
  RateLimiterModule,
} from '../../../src';

@Controller()
class ClosingController {
  @Get('count')
  @CountLimit({ limit: 1, period: 60, key: 'closing' })
  count() {
    return 'ok';
  }

  @Get('bucket')
  @RateLimit({ rate: 1, burst: 1, key: 'closing' })
  bucket() {
    return 'ok';
  }
}

/** The admin API is not called here: nobody may. */
@Injectable()
class NobodyGuard implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

const admin = process.env.ADMIN === '1';

@Module({
  imports: [
    RateLimiterModule.forRoot({ redis: process.env.REDIS_URL }),
    ...(admin ? [RateLimiterAdminModule.forRoot({ path: 'admin', guards: [NobodyGuard] })] : []),
  ],
  controllers: [ClosingController],
})
class ClosingModule {}

/** The status of one GET, on a connection that is not kept alive. */
function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, host: '127.0.0.1', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const app =
    process.env.PLATFORM === 'fastify'
      ? await NestFactory.create(ClosingModule, new FastifyAdapter(), { logger: ['error'] })
      : await NestFactory.create(ClosingModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const port = app.getHttpServer().address().port;
  const statuses = [];
  for (const path of ['/count', '/count', '/bucket', '/bucket'])
    statuses.push(await get(port, path));
  await app.get(RateLimiterFactory).countLimiter({ key: 'closing', limit: 1, period: 60 }).reset();
  statuses.push(await get(port, '/count'));
  await app.close();
  process.stdout.write(`CLOSED ${statuses.join(' ')}\n`);
}

void main();
