import { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, RateLimiterModule, RedisStore } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, startApp } from '../helpers/http';
import {
  RedisServer,
  spawnRedis,
  startRedisServer,
  stopProcess,
  waitForPing,
} from '../helpers/redis-server';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/free-port';

@Controller()
class LoggedController {
  @Get('counted')
  @CountLimit({ key: '#{query.k}', limit: 1, period: 60 })
  counted() {
    return 'ok';
  }
}

/** Keeps Redis busy for `ms` with a script, as a slow command would. */
function blockRedis(admin: Redis, ms: number): Promise<unknown> {
  const script = `
    local t = redis.call('TIME'); local start = t[1] * 1000000 + t[2]
    repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1])
    return 1`;
  return admin.eval(script, 0, String(ms * 1000));
}

function appModule(redis: string | RedisStore) {
  const store = typeof redis === 'string' ? { redis } : { store: redis };
  @Module({
    imports: [RateLimiterModule.forRoot({ ...store, storeTimeout: 200 })],
    controllers: [LoggedController],
  })
  class LoggedModule {}
  return LoggedModule;
}

describe('store error logs', () => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  let logger: CaptureLogger;

  beforeEach(async () => {
    redis = await startRedisServer();
    logger = new CaptureLogger();
    ({ app, port } = await startApp(appModule(redis.url), 'express', logger));
  });
  afterEach(async () => {
    await app.close();
    await redis.stop();
  });

  it('logs a WRONGTYPE key as one error, not as an outage that a healthy key ends', async () => {
    const admin = redis.client();
    await admin.lpush('countLimit:bad', 'not a counter');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await call(port, { path: '/counted?k=bad' })).status);
      statuses.push((await call(port, { path: `/counted?k=good${i}` })).status);
    }
    expect(statuses).toEqual(Array(10).fill(200)); // 'allow' for the broken key
    expect(logger.count('error', /answered WRONGTYPE/)).toBe(1);
    expect(logger.count('warn', /store unavailable/)).toBe(0);
    expect(logger.count('log', /store is back/)).toBe(0);
  });

  it('ends an outage only on a real Redis answer, not on a denial remembered locally', async () => {
    expect((await call(port, { path: '/counted?k=x' })).status).toBe(200);
    expect((await call(port, { path: '/counted?k=x' })).status).toBe(429);
    const busy = blockRedis(redis.client(), 1_000);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the script is running
    expect((await call(port, { path: '/counted?k=y' })).status).toBe(200); // timed out: 'allow'
    expect(logger.count('warn', /store unavailable/)).toBe(1);
    // Answered from the local denial cache: says nothing about Redis.
    expect((await call(port, { path: '/counted?k=x' })).status).toBe(429);
    expect(logger.count('log', /store is back/)).toBe(0);
    await busy;
    expect((await call(port, { path: '/counted?k=z' })).status).toBe(200);
    expect(logger.count('log', /store is back/)).toBe(1);
    expect(logger.count('warn', /store unavailable/)).toBe(1);
  });
});

describe('an ACL user that may not run scripts', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedisServer();
    await redis
      .client()
      .call('ACL', 'SETUSER', 'no-scripts', 'on', '>secret', '~*', '+@all', '-@scripting');
  });
  afterAll(() => redis.stop());

  it('as the redis option: start-up stops, naming the permission', async () => {
    const url = `redis://no-scripts:secret@127.0.0.1:${redis.port}`;
    await expect(startApp(appModule(url), 'express')).rejects.toThrow(
      /may not run the limiter's decisions \(NOPERM .*'eval(sha)?' command\)/,
    );
  });

  it('in a store of its own (not checked before start-up): logs NOPERM naming the permission once serving, and errors (not outages) per request', async () => {
    const logger = new CaptureLogger();
    const client = redis.client({ username: 'no-scripts', password: 'secret' });
    const { app, port } = await startApp(appModule(new RedisStore({ client })), 'express', logger);
    try {
      const started = Date.now();
      while (logger.count('error', /cannot run its scripts/) === 0 && Date.now() - started < 2000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(
        logger.count('error', /cannot run its scripts \(NOPERM.*'eval(sha)?' permission/),
      ).toBe(1);
      for (let i = 0; i < 5; i++) await call(port, { path: `/counted?k=acl${i}` });
      expect(logger.count('error', /answered NOPERM/)).toBe(1);
      expect(logger.count('warn', /store unavailable/)).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('decides as an ACL user that may run the scripts and their commands', async () => {
    await redis.client().call(
      'ACL',
      'SETUSER',
      'limiter',
      'on',
      '>pw',
      '~countLimit:*',
      '+evalsha',
      '+eval',
      '+time',
      '+set', // a window's first request
      '+incrby', // the next ones, and a denial's give-back
      '+pexpire',
      '+pttl',
      '+get', // a block kept in the key is looked for first
      '&nestjs-limiter:forget', // resets elsewhere end remembered denials
      '+subscribe',
      '+publish',
      '+info', // ioredis's ready check
      '+config|get', // the module's eviction-policy check
    );
    const url = `redis://limiter:pw@127.0.0.1:${redis.port}`;
    const logger = new CaptureLogger();
    const { app, port } = await startApp(appModule(url), 'express', logger);
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await call(port, { path: '/counted?k=u' })).status);
      expect(statuses).toEqual([200, 429, 429]);
      // The second, denied, counted nothing; the third was a cached denial.
      expect(await redis.client().get('countLimit:u')).toBe('1');
      expect(logger.lines.filter((line) => line.level !== 'log')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('a Redis unreachable from the start', () => {
  it('is named with its host:port and the cause, once for any number of requests, then back', async () => {
    const port = await freePort();
    const logger = new CaptureLogger();
    const { app, port: httpPort } = await startApp(
      appModule(`redis://127.0.0.1:${port}`),
      'express',
      logger,
    );
    const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-late-'));
    let redis: ChildProcess | undefined;
    try {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(httpPort, { path: `/counted?k=${i % 2}` })),
      );
      expect(statuses.map((reply) => reply.status)).toEqual(Array(20).fill(200));
      const cause = `connect ECONNREFUSED 127.0.0.1:${port}`;
      expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([
        { level: 'warn', message: `Redis at 127.0.0.1:${port} is unreachable (${cause})` },
        {
          level: 'warn',
          message: `Rate-limit store unavailable (Redis at 127.0.0.1:${port} is unreachable (${cause})): requests are allowed without limits until it is back`,
        },
      ]);
      redis = spawnRedis(port, dir);
      await waitForPing(port);
      const back = new RegExp(
        `^Redis at 127\\.0\\.0\\.1:${port} is back after \\d+ s unreachable$`,
      );
      expect(await eventually(async () => logger.count('log', back), 1, 5_000)).toBe(1);
      expect((await call(httpPort, { path: '/counted?k=z' })).status).toBe(200);
      expect((await call(httpPort, { path: '/counted?k=z' })).status).toBe(429);
    } finally {
      await app.close();
      await stopProcess(redis);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
