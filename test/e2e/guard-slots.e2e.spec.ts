import { request as httpRequest } from 'node:http';
import { Controller, Get, INestApplication, MessageEvent, Module, Sse } from '@nestjs/common';
import Redis from 'ioredis';
import { Observable, interval, map, take } from 'rxjs';
import {
  ConcurrencyLimit,
  RateLimitEvent,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller('slots')
class SlotsController {
  @Get('late')
  @ConcurrencyLimit({ key: 'late', max: 5 })
  late() {
    return 'ok';
  }

  @Sse('stream')
  @ConcurrencyLimit({ key: 'stream', max: 1 })
  stream(): Observable<MessageEvent> {
    return interval(100).pipe(
      take(3),
      map((i) => ({ data: { i } })),
    );
  }
}

function moduleWith(options: RateLimiterModuleOptions, controllers: any[]) {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
  class TestModule {}
  return TestModule;
}

/** Blocks the Redis server for `ms`, as a slow command or a busy replica would. */
function blockRedis(admin: Redis, ms: number): Promise<unknown> {
  const script = `
    local t = redis.call('TIME'); local start = t[1] * 1000000 + t[2]
    repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1])
    return 1`;
  return admin.eval(script, 0, String(ms * 1000));
}

/** Opens an SSE stream; resolves `firstEvent` on its first data line and `ended` at its end. */
function openStream(port: number) {
  let onFirst!: () => void;
  const firstEvent = new Promise<void>((resolve) => (onFirst = resolve));
  const ended = new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/slots/stream', agent: false },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('data:')) onFirst();
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { firstEvent, ended };
}

describe('concurrency slots on real Redis: given back when the work ends', () => {
  let redis: RedisServer;
  let admin: Redis;
  const apps: INestApplication[] = [];
  const start = async (options: RateLimiterModuleOptions, controllers: any[]) => {
    const started = await startApp(moduleWith(options, controllers), 'express');
    apps.push(started.app);
    return started.port;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await admin.flushall();
  });
  afterAll(() => redis.stop());

  it('a slot granted after storeTimeout is given back, not held until its lease', async () => {
    const events: RateLimitEvent[] = [];
    const port = await start(
      { redis: redis.url, storeTimeout: 100, onDecision: (event) => events.push(event) },
      [SlotsController],
    );
    expect((await call(port, { path: '/slots/late' })).status).toBe(200); // connection warm
    const blocked = blockRedis(admin, 400);
    const reply = await call(port, { path: '/slots/late' });
    expect(reply.status).toBe(200); // 'allow' after storeTimeout
    expect(reply.elapsedMs).toBeLessThan(300);
    await blocked;
    await pause(100);
    expect(await admin.zcard('concurrency:late')).toBe(0);
    expect(events.filter((event) => event.outcome === 'store-error')).toHaveLength(1);
  });

  it('a server-sent event stream holds its slot until the stream ends', async () => {
    const port = await start({ redis: redis.url }, [SlotsController]);
    const first = openStream(port);
    await first.firstEvent;
    expect((await call(port, { path: '/slots/stream' })).status).toBe(429);
    expect(await admin.zcard('concurrency:stream')).toBe(1);
    expect(await first.ended).toBe(200);
    await pause(50);
    expect(await admin.zcard('concurrency:stream')).toBe(0);
    const second = openStream(port);
    expect(await second.ended).toBe(200);
  });
});
