import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { RateLimiterFactory, RateLimiterModule } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

function compile(redis: string) {
  return Test.createTestingModule({ imports: [RateLimiterModule.forRoot({ redis })] }).compile();
}

/** The start-up error, or a failure of the test when start-up went through. */
async function startUpError(redis: string): Promise<string> {
  const error = await compile(redis).then(
    async (moduleRef) => {
      await moduleRef.close();
      return new Error('start-up went through');
    },
    (thrown: Error) => thrown,
  );
  return error.message;
}

/** Five decisions one after another on a fresh key of a limit of 2: how many were allowed. */
async function fiveOnTwo(factory: RateLimiterFactory, key: string): Promise<number> {
  const limiter = factory.countLimiter({ key, limit: 2, period: 60 });
  let allowed = 0;
  for (let i = 0; i < 5; i++) if (await limiter.tryAcquire()) allowed++;
  return allowed;
}

const calls = async (admin: Redis, command: string) =>
  Number(
    new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await admin.info('commandstats'))?.[1] ?? 0,
  );

describe('a redis option that connects but cannot decide stops start-up, or takes the path that works', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    master = await startRedisServer();
    replica = await startRedisServer(['--replicaof', '127.0.0.1', String(master.port)]);
    admin = master.client();
  });
  afterAll(async () => {
    await replica.stop();
    await master.stop();
  });

  it('a read-only replica: stopped, naming it', async () => {
    expect(await startUpError(replica.url)).toBe(
      `RateLimiterModule: option 'redis' ('${replica.url}'): Redis at 127.0.0.1:${replica.port} ` +
        `is a read-only replica, where no decision can be written (READONLY You can't write ` +
        `against a read only replica.): connect to the master, or through Sentinel`,
    );
  });

  it('an ACL user without script permissions: stopped, naming the permission', async () => {
    await admin.acl('SETUSER', 'noscripts', 'on', '>pw', '~*', '&*', '+@all', '-@scripting');
    expect(await startUpError(`redis://noscripts:pw@127.0.0.1:${master.port}`)).toMatch(
      /^RateLimiterModule: option 'redis' \('redis:\/\/noscripts:\*\*\*@127\.0\.0\.1:\d+'\): the Redis user may not run the limiter's decisions \(NOPERM this user has no permissions to run the '(evalsha|eval|function\|load)' command\): it needs EVALSHA and EVAL \(or FUNCTION and FCALL\) and write access to the limits' keys$/,
    );
  });

  it('an ACL user without write access to the keys: stopped', async () => {
    await admin.acl('SETUSER', 'readonly', 'on', '>pw', '%R~*', '&*', '+@all');
    expect(await startUpError(`redis://readonly:pw@127.0.0.1:${master.port}`)).toMatch(
      /the Redis user may not run the limiter's decisions \(NOPERM/,
    );
  });

  it('an ACL user that may load Functions but not FCALL: starts, and decides as EVALSHA', async () => {
    await admin.acl('SETUSER', 'nofcall', 'on', '>pw', '~*', '&*', '+@all', '-fcall');
    const moduleRef = await compile(`redis://nofcall:pw@127.0.0.1:${master.port}`);
    try {
      await admin.config('RESETSTAT');
      const factory = moduleRef.get(RateLimiterFactory);
      expect(await fiveOnTwo(factory, 'nofcall:a')).toBe(2);
      expect(await fiveOnTwo(factory, 'nofcall:b')).toBe(2);
      expect(await calls(admin, 'evalsha')).toBeGreaterThan(0);
    } finally {
      await moduleRef.close();
    }
  });

  it('maxclients reached: stopped, naming it (not "unreachable (write EPIPE)")', async () => {
    await admin.config('SET', 'maxclients', '1');
    try {
      expect(await startUpError(master.url)).toBe(
        `RateLimiterModule: option 'redis' ('${master.url}'): Redis refuses new connections: ` +
          `its maxclients is reached (ERR max number of clients reached)`,
      );
    } finally {
      await admin.config('SET', 'maxclients', '10000');
    }
  });

  it('the master, on a user with every permission: starts, and decides exactly', async () => {
    const moduleRef = await compile(master.url);
    try {
      expect(await fiveOnTwo(moduleRef.get(RateLimiterFactory), 'master:a')).toBe(2);
    } finally {
      await moduleRef.close();
    }
  });
});
