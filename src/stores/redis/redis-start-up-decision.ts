import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { countLimit, countLimitKind } from '../../algorithms/count-limit/count-limit.definition';
import type { RedisCallMode } from './engine/call-mode';
import { describeEndpoint } from './endpoint/endpoint-description';
import { ONE_TRY, START_UP_CHECK_MS } from './endpoint/start-up-connection';
import { permanentErrorCode } from '../failure/store-error-log';
import { RedisStore } from './redis.store';

/** The first line of the first error reply in `error` and its causes. */
function replyOf(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'ReplyError' || e.name === 'StoreReplyError') return e.message.split('\n')[0];
  }
  return undefined;
}

/**
 * Why a decision refused at start-up means the store can never decide, or undefined when it
 * is only away (a timeout, a lost connection): a read-only replica, a user without the
 * scripts' or the keys' permission, a server that refuses writes (`OOM` under `noeviction`).
 * Each would otherwise start an app whose every request fails open or closed.
 */
function refusalOf(error: unknown, where: string): string | undefined {
  const reply = replyOf(error);
  if (reply === undefined) return undefined;
  if (/^READONLY\b/.test(reply)) {
    return (
      `Redis at ${where} is a read-only replica, where no decision can be written (${reply}): ` +
      `connect to the master, or through Sentinel`
    );
  }
  if (/^NOPERM\b/.test(reply)) {
    return (
      `the Redis user may not run the limiter's decisions (${reply}): it needs EVALSHA and ` +
      `EVAL (or FUNCTION and FCALL) and write access to the limits' keys`
    );
  }
  const code = permanentErrorCode(error);
  return code === undefined ? undefined : `Redis refused a decision (${reply})`;
}

/**
 * One real decision, and so one real write, on a connection of its own beside the store's
 * (still closed), through the engine as the store will call it: FCALL, or EVALSHA where FCALL
 * is refused. A PING proves little: a read-only replica, an ACL user without script or key
 * permissions, a server out of memory all answer it. Says what stops start-up, or undefined
 * when the decision was made or Redis is only away (the app then starts under
 * `onStoreError`). The key decided is deleted, and expires within a second anyway.
 */
export async function startUpDecisionRefusal(
  client: Redis,
  options: { keyPrefix?: string; calls?: RedisCallMode; timeoutMs?: number } = {},
): Promise<string | undefined> {
  const timeoutMs = options.timeoutMs ?? START_UP_CHECK_MS;
  const connection = client.duplicate({ ...ONE_TRY, connectTimeout: timeoutMs });
  connection.on('error', () => undefined);
  const store = new RedisStore({
    client: connection,
    ownsClient: true,
    cacheDenials: false,
    calls: options.calls,
  });
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const key = `${options.keyPrefix ?? ''}${countLimitKind.defaultPrefix}start-up-probe:${randomUUID()}`;
  const decided = (async () => {
    try {
      // Loads the library and finds whether FCALL may run, as the store's own check does.
      await store.checkEngine();
      await store.evaluate({
        algorithm: countLimit,
        key,
        params: { limit: 1, periodMs: 1000 },
        request: { permits: 1 },
        deadlineMs: performance.now() + timeoutMs,
      });
      // It expires anyway; a user allowed scripts but not DEL keeps it for that second.
      await connection.del(key).catch(() => undefined);
      return undefined;
    } catch (error) {
      return refusalOf(error, describeEndpoint(client.options));
    }
  })();
  try {
    return await Promise.race([decided, silent]);
  } finally {
    clearTimeout(timer);
    await store.close().catch(() => connection.disconnect());
  }
}
