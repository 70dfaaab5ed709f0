import type { Redis, RedisOptions } from 'ioredis';
import { describeEndpoint } from './endpoint-description';

/**
 * Longest wait for the start-up connection: an endpoint that has not answered by then is
 * taken as unreachable (the app starts, under `onStoreError`), unless TLS explains it.
 */
export const START_UP_CHECK_MS = 2_000;

/** What one connection at start-up found: a misconfiguration stops start-up. */
type StartUpFinding =
  | { kind: 'ok' }
  | { kind: 'misconfigured'; cause: string }
  | { kind: 'unreachable'; cause: string };

/** One connection that tries once, reports every error and queues nothing. */
export const ONE_TRY: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: true,
  maxRetriesPerRequest: 0,
  retryStrategy: () => null,
  sentinelRetryStrategy: () => null,
  reconnectOnError: null,
};

function hasCode(error: Error, code: string): boolean {
  return (error as NodeJS.ErrnoException).code === code;
}

function firstLine(error: Error): string {
  return error.message.split('\n')[0];
}

/** The misconfiguration an error reveals, or undefined for an endpoint that is only away. */
function misconfiguration(error: Error, options: RedisOptions): string | undefined {
  const message = firstLine(error);
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (/^(WRONGPASS|NOAUTH)|invalid (username-)?password/i.test(message)) {
    return `Redis refused the credentials (${message})`;
  }
  if (/DB index is out of range|invalid DB index/i.test(message)) {
    return `Redis has no database ${options.db ?? 0} (${message})`;
  }
  // Not a reset during the handshake ("...before secure TLS connection was established"),
  // which a network can cause: only what TLS itself refused.
  if (code.startsWith('ERR_SSL') || code === 'EPROTO' || /SSL routines/.test(message)) {
    return `the TLS connection failed (${message})`;
  }
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return `the server's TLS certificate was refused (${message})`;
  }
  if (/max number of clients reached/i.test(message)) {
    return `Redis refuses new connections: its maxclients is reached (${message})`;
  }
  if (/Unknown RESP type|Protocol error/i.test(message)) {
    return `the server at ${describeEndpoint(options)} does not speak the Redis protocol (${message})`;
  }
  return undefined;
}

/** Connects, PINGs and closes; every error the connection reported, first first. */
async function tryOnce(client: Redis, overrides: RedisOptions, timeoutMs: number) {
  const probe = client.duplicate({ ...ONE_TRY, connectTimeout: timeoutMs, ...overrides });
  const errors: Error[] = [];
  probe.on('error', (error: Error) => errors.push(error));
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      errors.push(new Error(`no answer within ${timeoutMs} ms`));
      resolve();
    }, timeoutMs);
  });
  const answered = probe
    .connect()
    .then(() => probe.ping())
    .then(
      () => true,
      (error: Error) => void errors.push(error),
    );
  const pinged = await Promise.race([answered, silent]);
  clearTimeout(timer);
  // An ended client has no stream left: disconnecting it would arm a timer of ioredis's.
  if (probe.status !== 'end') probe.disconnect();
  // ioredis's own error for a connection already lost says less than the one that lost it.
  const found = errors.filter((error) => error.message !== 'Connection is closed.');
  return { pinged: pinged === true, errors: found.length > 0 ? found : errors };
}

/**
 * A connection that sends nothing, for what the server says before any command: a Redis at
 * its `maxclients` answers a new connection with an error and closes it, so the first
 * command written (AUTH, the ready check) only meets a closed socket (EPIPE, ECONNRESET) and
 * the error is never read. The error reply heard, if any.
 */
async function greeting(client: Redis, timeoutMs: number): Promise<Error | undefined> {
  const silent = client.duplicate({
    ...ONE_TRY,
    connectTimeout: timeoutMs,
    enableReadyCheck: false,
    disableClientInfo: true,
    ...{ password: undefined, username: undefined, db: 0, connectionName: undefined },
    readOnly: false,
  });
  let heard: Error | undefined;
  silent.on('error', (error: Error) => {
    if (error.name === 'ReplyError') heard ??= error;
  });
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    // A server that keeps the connection has nothing to say: no need to wait long.
    timer = setTimeout(resolve, Math.min(timeoutMs, GREETING_WAIT_MS));
    silent.once('close', () => resolve());
  });
  await silent.connect().catch(() => undefined);
  await closed;
  clearTimeout(timer);
  if (silent.status !== 'end') silent.disconnect();
  return heard;
}

/** The longest wait for a server's first words on a connection that said nothing yet. */
const GREETING_WAIT_MS = 500;

/** Errors that say the server closed the connection, not what it said when it did. */
const CLOSED_BY_SERVER = /EPIPE|ECONNRESET|Connection is closed/;

/**
 * Connects once, beside the store's own connection (still closed), and says what it found: a
 * wrong password, a database that does not exist or a TLS mismatch must stop start-up rather
 * than let every request through; an endpoint that is only away does not.
 */
export async function checkStartUpConnection(
  client: Redis,
  timeoutMs = START_UP_CHECK_MS,
): Promise<StartUpFinding> {
  const options = client.options;
  const bound = Math.min(options.connectTimeout ?? timeoutMs, timeoutMs);
  const { pinged, errors } = await tryOnce(client, {}, bound);
  for (const error of errors) {
    const cause = misconfiguration(error, options);
    if (cause) return { kind: 'misconfigured', cause };
  }
  if (pinged) return { kind: 'ok' };
  if (errors.some((error) => CLOSED_BY_SERVER.test(error.message))) {
    const said = await greeting(client, bound);
    const cause = said && misconfiguration(said, options);
    if (cause) return { kind: 'misconfigured', cause };
  }
  const cause = errors.map(firstLine).join('; ') || 'no answer';
  if (!options.tls && errors.some((error) => hasCode(error, 'ECONNRESET'))) {
    // A TLS server resets a connection that does not start with a handshake.
    const secure = await tryOnce(client, { tls: { rejectUnauthorized: false } }, bound);
    if (secure.pinged || secure.errors.some((error) => error.name === 'ReplyError')) {
      return {
        kind: 'misconfigured',
        cause:
          `the server at ${describeEndpoint(options)} serves TLS, but neither rediss:// nor ` +
          `the tls option asks for it (${cause})`,
      };
    }
  }
  if (options.tls) {
    // A plain Redis never answers a TLS handshake: the connection just waits.
    const plain = await tryOnce(client, { tls: undefined }, bound);
    if (plain.pinged || plain.errors.some((error) => error.name === 'ReplyError')) {
      return {
        kind: 'misconfigured',
        cause:
          `TLS was asked for (rediss:// or the tls option), but the server at ` +
          `${describeEndpoint(options)} answers without TLS (${cause})`,
      };
    }
  }
  return { kind: 'unreachable', cause };
}
