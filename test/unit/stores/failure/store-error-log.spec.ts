import { Logger } from '@nestjs/common';
import { StoreUnavailableError } from '../../../../src/errors/store-unavailable.error';
import {
  ERROR_LOG_INTERVAL_MS,
  permanentErrorCode,
  StoreErrorLog,
} from '../../../../src/stores/failure/store-error-log';
import { StoreReplyError } from '../../../../src/stores/store-reply.error';
import { CaptureLogger } from '../../../helpers/capture-logger';

class ReplyError extends Error {
  override readonly name = 'ReplyError';
}

function setUp() {
  const capture = new CaptureLogger();
  // Nest's Logger forwards to its static instance: a plain object stands in for it.
  const logger = {
    log: (message: string) => capture.log(message),
    warn: (message: string) => capture.warn(message),
    error: (message: string) => capture.error(message),
  } as unknown as Logger;
  let nowMs = 1_000;
  const log = new StoreErrorLog(logger, 'allow', () => nowMs);
  const at = (ms: number) => (nowMs = ms);
  const levels = () => capture.lines.map((line) => `${line.level}: ${line.message}`);
  return { log, at, levels };
}

describe('permanentErrorCode', () => {
  it('names error replies that waiting will not fix, through causes', () => {
    const wrap = (cause: Error) => new StoreUnavailableError('the store failed', cause);
    expect(permanentErrorCode(wrap(new StoreReplyError('WRONGTYPE Operation against a key')))).toBe(
      'WRONGTYPE',
    );
    expect(permanentErrorCode(wrap(new ReplyError('NOPERM User x has no permissions')))).toBe(
      'NOPERM',
    );
    expect(permanentErrorCode(new ReplyError('OOM command not allowed'))).toBe('OOM');
    expect(permanentErrorCode(new ReplyError('LOADING Redis is loading'))).toBeUndefined();
    expect(permanentErrorCode(wrap(new Error('Connection is closed.')))).toBeUndefined();
    expect(permanentErrorCode('not an error')).toBeUndefined();
  });
});

describe('StoreErrorLog', () => {
  it('warns once per outage and ends it only on an answer given after it began', () => {
    const { log, at, levels } = setUp();
    log.failed(new StoreUnavailableError('no answer within storeTimeout (200 ms)'));
    log.failed(new StoreUnavailableError('no answer within storeTimeout (200 ms)'));
    log.succeeded(500); // an answer older than the outage: a locally remembered denial
    at(2_000);
    log.succeeded(1_500);
    log.succeeded(undefined); // a store whose every answer is real, once back
    expect(levels()).toEqual([
      'warn: Rate-limit store unavailable (no answer within storeTimeout (200 ms)): requests are allowed without limits until it is back',
      'log: Rate-limit store is back: limits are shared again',
    ]);
  });

  it('reports at most one outage a minute, counting the others', () => {
    const { log, at, levels } = setUp();
    const timeout = new StoreUnavailableError('no answer within storeTimeout (200 ms)');
    for (const ms of [1_000, 5_000, 9_000]) {
      at(ms);
      log.failed(timeout);
      at(ms + 1_000);
      log.succeeded(ms + 500);
    }
    at(1_000 + ERROR_LOG_INTERVAL_MS);
    log.failed(timeout);
    expect(levels()).toEqual([
      'warn: Rate-limit store unavailable (no answer within storeTimeout (200 ms)): requests are allowed without limits until it is back',
      'log: Rate-limit store is back: limits are shared again',
      'warn: Rate-limit store unavailable (no answer within storeTimeout (200 ms)): requests are allowed without limits until it is back (2 more outages since the last report)',
    ]);
  });

  it('logs a permanent error at most once a minute per code, counting the rest', () => {
    const { log, at, levels } = setUp();
    const wrongType = new StoreReplyError('WRONGTYPE Operation against a key');
    log.failed(wrongType);
    log.failed(wrongType);
    log.failed(new StoreReplyError('OOM command not allowed'));
    log.succeeded(5_000);
    at(1_000 + ERROR_LOG_INTERVAL_MS - 1);
    log.failed(wrongType);
    at(1_000 + ERROR_LOG_INTERVAL_MS);
    log.failed(wrongType);
    expect(levels()).toEqual([
      'error: Rate-limit store answered WRONGTYPE, which waiting will not fix (WRONGTYPE Operation against a key): those requests are allowed without limits',
      'error: Rate-limit store answered OOM, which waiting will not fix (OOM command not allowed): those requests are allowed without limits',
      'error: Rate-limit store answered WRONGTYPE, which waiting will not fix (WRONGTYPE Operation against a key): those requests are allowed without limits (2 more since the last report)',
    ]);
  });

  it('names the missing permission of a start-up check, and ignores an unreachable store', () => {
    const { log, levels } = setUp();
    log.checkFailed(new Error('connect ECONNREFUSED 127.0.0.1:1'));
    log.checkFailed(
      new ReplyError("NOPERM User limiter has no permissions to run the 'evalsha' command"),
    );
    expect(levels()).toEqual([
      "error: Rate-limit store cannot run its scripts (NOPERM User limiter has no permissions to run the 'evalsha' command). The Redis user lacks the 'evalsha' permission. Requests are allowed without limits until this is fixed",
    ]);
  });
});
