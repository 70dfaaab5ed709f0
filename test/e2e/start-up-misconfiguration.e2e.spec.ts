import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import Redis, { RedisOptions } from 'ioredis';
import { LimiterStore, RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { freePort } from '../helpers/free-port';
import { RedisServer, spawnRedis, startRedisServer, stopProcess } from '../helpers/redis-server';

/** The password of the Redis below: no error message may show it. */
const PASSWORD = 'hunter2-secret';

function compile(redis: string | RedisOptions | Redis) {
  const options: RateLimiterModuleOptions = { redis };
  return Test.createTestingModule({ imports: [RateLimiterModule.forRoot(options)] }).compile();
}

/** The start-up error, or a failure of the test when start-up went through. */
async function startUpError(redis: string | RedisOptions | Redis): Promise<string> {
  const started = Date.now();
  const error = await compile(redis).then(
    async (moduleRef) => {
      await moduleRef.close();
      return new Error('start-up went through');
    },
    (thrown: Error) => thrown,
  );
  // Never a hang: the start-up connection is bounded (a TLS handshake a server ignores).
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(error.message).not.toContain(PASSWORD);
  return error.message;
}

describe('a redis option that cannot work stops start-up, naming the option and the cause', () => {
  let redis: RedisServer;
  let port: number;
  beforeAll(async () => {
    redis = await startRedisServer();
    port = redis.port;
    await redis.client().config('SET', 'requirepass', PASSWORD);
  });
  afterAll(() => redis.stop());

  it.each([
    [
      'a URL missing its colon',
      () => 'redis//127.0.0.1:6379',
      () =>
        "RateLimiterModule: option 'redis' ('redis//127.0.0.1:6379'): it is not a Redis URL (redis://[[user]:password@]host[:port][/db], rediss://... for TLS, or a Unix socket path)",
    ],
    [
      'an unknown scheme',
      () => `http://127.0.0.1:${port}`,
      () =>
        `RateLimiterModule: option 'redis' ('http://127.0.0.1:${port}'): unknown scheme 'http:' (redis://[[user]:password@]host[:port][/db], rediss://... for TLS, or a Unix socket path)`,
    ],
    [
      'a database that is not a number',
      () => `redis://:${PASSWORD}@127.0.0.1:${port}/cache`,
      () =>
        `RateLimiterModule: option 'redis' ('redis://:***@127.0.0.1:${port}/cache'): the database 'cache' is not a number (redis://[[user]:password@]host[:port][/db], rediss://... for TLS, or a Unix socket path)`,
    ],
    [
      'a database out of range',
      () => `redis://:${PASSWORD}@127.0.0.1:${port}/99`,
      () =>
        `RateLimiterModule: option 'redis' ('redis://:***@127.0.0.1:${port}/99'): Redis has no database 99 (ERR DB index is out of range)`,
    ],
    [
      'a wrong password',
      () => `redis://:not-${PASSWORD}@127.0.0.1:${port}`,
      () =>
        `RateLimiterModule: option 'redis' ('redis://:***@127.0.0.1:${port}'): Redis refused the credentials (WRONGPASS invalid username-password pair or user is disabled.)`,
    ],
    [
      'a wrong password, in ioredis options',
      () => ({ host: '127.0.0.1', port, password: `not-${PASSWORD}` }),
      () =>
        `RateLimiterModule: option 'redis' (127.0.0.1:${port}): Redis refused the credentials (WRONGPASS invalid username-password pair or user is disabled.)`,
    ],
    [
      'no password where Redis needs one',
      () => `redis://127.0.0.1:${port}`,
      () =>
        `RateLimiterModule: option 'redis' ('redis://127.0.0.1:${port}'): Redis refused the credentials (NOAUTH`,
    ],
    [
      'rediss:// to a Redis without TLS',
      () => `rediss://:${PASSWORD}@127.0.0.1:${port}`,
      () =>
        `RateLimiterModule: option 'redis' ('rediss://:***@127.0.0.1:${port}'): TLS was asked for (rediss:// or the tls option), but the server at 127.0.0.1:${port} answers without TLS`,
    ],
    [
      'the tls option to a Redis without TLS',
      () => ({ host: '127.0.0.1', port, password: PASSWORD, tls: {} }),
      () =>
        `RateLimiterModule: option 'redis' (127.0.0.1:${port}): TLS was asked for (rediss:// or the tls option), but the server at 127.0.0.1:${port} answers without TLS`,
    ],
  ])('%s', async (_, redisOption, message) => {
    expect(await startUpError(redisOption())).toContain(message());
  });

  it('a client passed in with a wrong password: the same error, its client left open', async () => {
    const client = redis.client({ password: `not-${PASSWORD}`, lazyConnect: true });
    expect(await startUpError(client)).toBe(
      `RateLimiterModule: option 'redis' (127.0.0.1:${port}): Redis refused the credentials (WRONGPASS invalid username-password pair or user is disabled.)`,
    );
    expect(client.status).toBe('wait');
  });

  it('the right password and database start, on a connection that decides', async () => {
    const moduleRef = await compile(`redis://:${PASSWORD}@127.0.0.1:${port}/3`);
    const store = moduleRef.get(LimiterStore);
    expect(store.constructor.name).toBe('RedisStore');
    await moduleRef.close();
  });
});

/** A redis-server that serves TLS only, with a certificate no one trusts (self-signed). */
async function startTlsRedis(): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-tls-'));
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  const made = spawnSync('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-keyout', key, '-out', cert, '-subj', '/CN=localhost'],
  ]);
  if (made.status !== 0) throw new Error(`openssl failed: ${String(made.stderr)}`);
  const port = await freePort();
  const child = spawnRedis(0, dir, [
    ...['--port', '0', '--tls-port', String(port)],
    ...['--tls-cert-file', cert, '--tls-key-file', key, '--tls-auth-clients', 'no'],
  ]);
  const probe = new Redis({ port, host: '127.0.0.1', tls: { rejectUnauthorized: false } });
  probe.on('error', () => undefined);
  await probe.ping();
  probe.disconnect();
  return {
    port,
    stop: async () => {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('a TLS setting that does not match the server stops start-up', () => {
  let tlsRedis: { port: number; stop(): Promise<void> };
  beforeAll(async () => {
    tlsRedis = await startTlsRedis();
  });
  afterAll(() => tlsRedis.stop());

  it('redis:// to a server that serves TLS only', async () => {
    const { port } = tlsRedis;
    expect(await startUpError(`redis://127.0.0.1:${port}`)).toContain(
      `RateLimiterModule: option 'redis' ('redis://127.0.0.1:${port}'): the server at 127.0.0.1:${port} serves TLS, but neither rediss:// nor the tls option asks for it`,
    );
  });

  it('a certificate the client does not trust', async () => {
    const { port } = tlsRedis;
    expect(await startUpError(`rediss://127.0.0.1:${port}`)).toBe(
      `RateLimiterModule: option 'redis' ('rediss://127.0.0.1:${port}'): the server's TLS certificate was refused (self-signed certificate)`,
    );
  });

  it('the same server with its certificate trusted starts', async () => {
    const moduleRef = await compile({
      host: '127.0.0.1',
      port: tlsRedis.port,
      tls: { rejectUnauthorized: false },
    });
    expect(moduleRef.get(LimiterStore).constructor.name).toBe('RedisStore');
    await moduleRef.close();
  });
});

describe('an unreachable Redis does not stop start-up', () => {
  it.each([
    ['connection refused', async () => `redis://127.0.0.1:${await freePort()}`],
    ['a host name that does not resolve', async () => 'redis://no-such-host.invalid:6379'],
  ])('%s', async (_, url) => {
    const moduleRef = await compile(await url());
    expect(moduleRef.get(LimiterStore).constructor.name).toBe('RedisStore');
    await moduleRef.close();
  });
});
