import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import Redis, { RedisOptions } from 'ioredis';
import { freePort } from './free-port';

/** A real redis-server process owned by one test file. */
export interface RedisServer {
  port: number;
  url: string;
  /** A new client; closed by `stop()`. */
  client(options?: RedisOptions): Redis;
  /** Kills the process (SIGKILL), as a crash would. `start()` brings a new, empty one up. */
  kill(): Promise<void>;
  /** `args`: the new process's options instead of the first's (a server replaced by another). */
  start(args?: string[]): Promise<void>;
  /** Freezes the process (SIGSTOP): its connections stay open, nothing answers. */
  freeze(): void;
  /** Resumes a frozen process (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

function assertRedisInstalled(): void {
  const probe = spawnSync('redis-server', ['--version']);
  if (probe.error || probe.status !== 0) {
    // No silent skip: without Redis the behaviour tests prove nothing.
    throw new Error('redis-server is not on PATH: install it (apt-get install -y redis-server)');
  }
}

/** One PING over a raw socket: no client library, so no retry or connect timers left behind. */
function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The arguments that take Redis Functions away, as Redis 6, KeyDB and Dragonfly lack them: the
 * store then runs its engine as a script (EVALSHA). Every server the helpers start has them
 * when LIMITER_TEST_NO_FUNCTIONS is set, so a suite runs on that call path too.
 */
export const WITHOUT_FUNCTIONS = ['--rename-command', 'FUNCTION', ''];

export function spawnRedis(port: number, dir: string, extraArgs: string[] = []): ChildProcess {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extraArgs,
      // Renamed once: a second rename of FUNCTION stops redis-server.
      ...(process.env.LIMITER_TEST_NO_FUNCTIONS && !extraArgs.includes('FUNCTION')
        ? WITHOUT_FUNCTIONS
        : []),
    ],
    { stdio: 'ignore' },
  );
  child.on('error', () => undefined);
  return child;
}

export function stopProcess(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** `extraArgs`: more of redis-server's options, such as {@link WITHOUT_FUNCTIONS}. */
export async function startRedisServer(extraArgs: string[] = []): Promise<RedisServer> {
  assertRedisInstalled();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-redis-'));
  const clients: Redis[] = [];
  let child: ChildProcess | undefined;

  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    client(options: RedisOptions = {}) {
      const client = new Redis(port, '127.0.0.1', options);
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async start(args = extraArgs) {
      child = spawnRedis(port, dir, args);
      await waitForPing(port);
    },
    async kill() {
      await stopProcess(child, 'SIGKILL');
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async stop() {
      // An ended client has no stream left to close: disconnecting it would arm ioredis's
      // 2 s disconnect timer, which nothing clears and which keeps jest waiting.
      for (const client of clients) if (client.status !== 'end') client.disconnect();
      child?.kill('SIGCONT'); // a frozen process would not act on SIGTERM
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
