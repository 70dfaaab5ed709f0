import Redis, { RedisOptions } from 'ioredis';
import { fixedWindow } from '../../src/algorithms/fixed-window/fixed-window.algorithm';
import { fixedWindowParams } from '../../src/algorithms/fixed-window/fixed-window.model';
import {
  RateLimiterFactory,
  RedisStore,
  RedisStoreOptions,
  StoreUnavailableError,
} from '../../src';
import {
  CommandNotSentError,
  RespConnection,
  respScript,
} from '../../src/stores/resp/resp-connection';
import { eventually } from '../helpers/eventually';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

type ClientInfo = Record<string, string>;

/** CLIENT LIST as records: `id`, `cmd` (the last command), `db`, `user`, … */
async function clients(admin: Redis): Promise<ClientInfo[]> {
  const list = String(await admin.client('LIST'))
    .trim()
    .split('\n');
  return list.map((line) =>
    Object.fromEntries(line.split(' ').map((field) => field.split('=', 2) as [string, string])),
  );
}

async function commandCalls(admin: Redis, command: string): Promise<number> {
  const stats = await admin.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

describe('RedisStore dedicated script connection', () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  /** The id of the one connection that appears while `act` runs. */
  async function newConnectionId(act: () => unknown): Promise<string> {
    const before = new Set((await clients(admin)).map((client) => client.id));
    act();
    const fresh = async () =>
      (await clients(admin)).filter((client) => !before.has(client.id)).map((c) => c.id);
    expect(await eventually(async () => (await fresh()).length, 1)).toBe(1);
    return (await fresh())[0];
  }

  /** An ACL user for the length of `run`. */
  async function withAclUser(name: string, rules: string[], run: () => Promise<void>) {
    await admin.call('ACL', 'SETUSER', name, 'on', ...rules);
    try {
      await run();
    } finally {
      await admin.call('ACL', 'DELUSER', name);
    }
  }

  /** Fields of one connection as CLIENT LIST shows it. */
  async function connectionFields(id: string, ...fields: string[]) {
    const connection = (await clients(admin)).find((c) => c.id === id);
    return fields.map((field) => connection?.[field]);
  }

  /** A store on a ready client, and the id of the script connection it opened. */
  async function storeWithConnection(
    clientOptions: RedisOptions = {},
    storeOptions: Partial<RedisStoreOptions> = {},
  ) {
    const client = redis.client(clientOptions);
    await client.ping();
    let store!: RedisStore;
    const connectionId = await newConnectionId(() => {
      store = new RedisStore({ client, ...storeOptions });
    });
    // Listed by Redis a moment before its handshake is done: wait until it carries a decision.
    const warmUp = fixedWindowParams({ limit: 1e9, period: 60 });
    const lastCommand = async () => {
      await store.evaluate(fixedWindow, 'warm-up', warmUp, undefined);
      return (await clients(admin)).find((c) => c.id === connectionId)?.cmd;
    };
    expect(await eventually(lastCommand, 'evalsha')).toBe('evalsha');
    return { client, store, connectionId, factory: new RateLimiterFactory(store) };
  }

  it('runs every decision on its own connection, exactly, one EVALSHA each', async () => {
    // A cold server: the connection loads its scripts itself, so none goes as a whole EVAL.
    await admin.script('FLUSH');
    const { client, factory, connectionId } = await storeWithConnection();
    const clientId = String(await client.client('ID'));
    const evalshaBefore = await commandCalls(admin, 'evalsha');
    const evalBefore = await commandCalls(admin, 'eval');

    const counter = factory.countLimiter({ key: 'clé:ü', limit: 120, period: 60 });
    const bucket = factory.rateLimiter({ key: 'bucket', rate: 1 / 60, burst: 2400 });
    const decisions = await Promise.all([
      ...Array.from({ length: 300 }, () => counter.tryAcquire()),
      ...Array.from({ length: 300 }, () => bucket.tryAcquire()),
    ]);

    expect(decisions.slice(0, 300).filter(Boolean)).toHaveLength(120);
    expect(decisions.slice(300).filter(Boolean)).toHaveLength(40);
    expect(await admin.get('countLimit:clé:ü')).toBe('300');
    // All 600 left in one tick, before any denial could be remembered locally.
    expect((await commandCalls(admin, 'evalsha')) - evalshaBefore).toBe(600);
    expect((await commandCalls(admin, 'eval')) - evalBefore).toBe(0);
    const byId = new Map((await clients(admin)).map((c) => [c.id, c]));
    expect(byId.get(connectionId)).toMatchObject({ cmd: 'evalsha', name: 'nestjs-limiter' });
    expect(byId.get(clientId)?.cmd).not.toBe('evalsha');
  });

  it('runs a script again with EVAL after SCRIPT FLUSH, then by SHA again', async () => {
    const { factory } = await storeWithConnection();
    const counter = factory.countLimiter({ key: 'flushed', limit: 20, period: 60 });
    expect(await counter.tryAcquire()).toBe(true);
    await admin.script('FLUSH');
    const evalBefore = await commandCalls(admin, 'eval');

    const after = await Promise.all(Array.from({ length: 12 }, () => counter.tryAcquire()));
    expect(after.filter(Boolean)).toHaveLength(12);
    expect(await admin.get('countLimit:flushed')).toBe('13');
    const evals = (await commandCalls(admin, 'eval')) - evalBefore;
    expect(evals).toBeGreaterThanOrEqual(1);

    // EVAL cached the script again: the next decision goes by SHA alone.
    const evalshaBefore = await commandCalls(admin, 'evalsha');
    expect(await counter.tryAcquire()).toBe(true);
    expect((await commandCalls(admin, 'evalsha')) - evalshaBefore).toBe(1);
    expect((await commandCalls(admin, 'eval')) - evalBefore).toBe(evals);
  });

  it("authenticates as the client's ACL user, selects its db and adds its keyPrefix", () =>
    withAclUser('limiter', ['>s3cret', '~*', '&*', '+@all'], async () => {
      const { factory, connectionId } = await storeWithConnection({
        username: 'limiter',
        password: 's3cret',
        db: 3,
        keyPrefix: 'tenant:',
      });
      const counter = factory.countLimiter({ key: 'k', limit: 5, period: 60 });
      expect([await counter.tryAcquire(), await counter.tryAcquire()]).toEqual([true, true]);

      const db3 = redis.client({ db: 3 });
      expect(await db3.get('tenant:countLimit:k')).toBe('2');
      expect(await admin.exists('countLimit:k', 'tenant:countLimit:k')).toBe(0);
      expect(await connectionFields(connectionId, 'user', 'db', 'cmd')).toEqual([
        'limiter',
        '3',
        'evalsha',
      ]);
    }));

  it('decides through the client while its connection is gone, then opens a new one', async () => {
    const { factory, connectionId } = await storeWithConnection();
    const counter = factory.countLimiter({ key: 'killed', limit: 100, period: 60 });
    expect(await counter.tryAcquire()).toBe(true);
    await admin.client('KILL', 'ID', connectionId);
    const listed = async () => (await clients(admin)).some((c) => c.id === connectionId);
    expect(await eventually(listed, false)).toBe(false);

    const during = await Promise.all(Array.from({ length: 20 }, () => counter.tryAcquire()));
    expect(during.filter(Boolean)).toHaveLength(20);

    // It is opened again (after a pause of about a second) on the next decision.
    const reopened = async () => {
      await counter.tryAcquire();
      return (await clients(admin)).some((c) => c.id !== connectionId && c.cmd === 'evalsha');
    };
    expect(await eventually(reopened, true, 3000)).toBe(true);
    const count = Number(await admin.get('countLimit:killed'));
    expect(count).toBeGreaterThanOrEqual(22);
    expect(await counter.tryAcquire()).toBe(true);
    expect(await admin.get('countLimit:killed')).toBe(String(count + 1));
  });

  it('sends decisions still queued through the client when its connection closes', async () => {
    const { client, factory } = await storeWithConnection();
    const counter = factory.countLimiter({ key: 'requeued', limit: 6, period: 60 });
    // 10 commands (~1.2 KB) stay under the 2 KB that would send them before this turn ends.
    const queued = Array.from({ length: 10 }, () => counter.tryAcquire());
    client.emit('end'); // what ioredis emits when the client is closed: the store closes its own
    const decisions = await Promise.all(queued);
    expect(decisions.filter(Boolean)).toHaveLength(6);
    expect(await admin.get('countLimit:requeued')).toBe('10');
  });

  it('keeps deciding on its own connection while the server drops the idle client', async () => {
    const { client, store, factory, connectionId } = await storeWithConnection({
      retryStrategy: () => 500, // a wide window in which the client is reconnecting
    });
    const counter = factory.countLimiter({ key: 'idle-client', limit: 100, period: 60 });
    await admin.client('KILL', 'ID', String(await client.client('ID')));
    expect(await eventually(async () => client.status, 'reconnecting')).toBe('reconnecting');

    expect(store.isUnavailable()).toBe(false);
    const decisions = await Promise.all(Array.from({ length: 20 }, () => counter.tryAcquire()));
    expect(decisions.filter(Boolean)).toHaveLength(20);
    expect(client.status).toBe('reconnecting');
    const connection = (await clients(admin)).find((c) => c.id === connectionId);
    expect(connection?.cmd).toBe('evalsha');
  });

  it('sets up under an ACL user that may run scripts but not CLIENT or SCRIPT', () =>
    withAclUser('scripts-only', ['>pw', '~*', '+@all', '-client', '-script'], async () => {
      const { factory, connectionId } = await storeWithConnection({
        username: 'scripts-only',
        password: 'pw',
      });
      const counter = factory.countLimiter({ key: 'acl-limited', limit: 5, period: 60 });
      expect(await counter.tryAcquire()).toBe(true);
      expect(await connectionFields(connectionId, 'user', 'name', 'cmd')).toEqual([
        'scripts-only',
        '',
        'evalsha',
      ]);
    }));

  it('opens no connection of its own with dedicatedConnection: false', async () => {
    const client = redis.client();
    await client.ping();
    const before = (await clients(admin)).length;
    const store = new RedisStore({ client, dedicatedConnection: false });
    const counter = new RateLimiterFactory(store).countLimiter({ key: 'own', limit: 3 });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => counter.tryAcquire()));
    expect(decisions.filter(Boolean)).toHaveLength(3);
    // An absence: give a wrongly opened connection time to show up, then look.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await clients(admin)).length).toBe(before);
  });

  it('closes its connection on close() and leaves a client passed in open', async () => {
    const { client, store, connectionId } = await storeWithConnection();
    await store.close();
    const ids = async () => (await clients(admin)).map((c) => c.id).includes(connectionId);
    expect(await eventually(ids, false)).toBe(false);
    expect(await client.ping()).toBe('PONG');
  });

  describe('RespConnection', () => {
    const script = respScript("return redis.call('INCR', KEYS[1])");
    const open = async () => {
      const connection = new RespConnection(
        { host: '127.0.0.1', port: redis.port, connectTimeoutMs: 1000 },
        [script],
        () => undefined,
      );
      await connection.ready;
      return connection;
    };
    const redisPid = async () => Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);

    it('fails a command still queued when it closes as not sent, so it may go another way', async () => {
      const connection = await open();
      expect(await connection.evalsha(script, 'resp:queued', '', 0)).toBe(1);
      const queued = connection.evalsha(script, 'resp:queued', '', 0);
      connection.close(new Error('closed by the test'));
      await expect(queued).rejects.toBeInstanceOf(CommandNotSentError);
      expect(await admin.get('resp:queued')).toBe('1');
    });

    it('fails a command already written as sent: it may have run', async () => {
      const connection = await open();
      const pid = await redisPid();
      process.kill(pid, 'SIGSTOP');
      try {
        const written = connection.evalsha(script, 'resp:written', '', 0);
        const outcome = written.then(
          () => 'answered',
          (error: Error) => error,
        );
        await new Promise((resolve) => setTimeout(resolve, 50)); // past the end-of-turn write
        connection.close(new Error('closed by the test'));
        const error = await outcome;
        expect(error).toBeInstanceOf(Error);
        expect(error).not.toBeInstanceOf(CommandNotSentError);
        expect((error as Error).message).toBe('closed by the test');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      // Redis did receive it before the socket closed: the command ran.
      expect(await eventually(() => admin.get('resp:written'), '1')).toBe('1');
    });
  });

  // Last: it kills the server (a new, empty one is started for any test after it).
  it('fails a decision in flight at once when Redis dies, instead of hanging', async () => {
    const { store } = await storeWithConnection({ retryStrategy: () => null });
    const pid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
    process.kill(pid, 'SIGSTOP');
    try {
      const params = fixedWindowParams({ limit: 5, period: 60 });
      const pending = store.evaluate(fixedWindow, 'frozen', params, undefined);
      const settled = pending.then(
        () => 'answered',
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const startedMs = Date.now();
      await redis.kill();
      const outcome = await settled;
      expect(outcome).toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - startedMs).toBeLessThan(1000);
    } finally {
      await redis.start();
      await admin.ping();
    }
  });
});
