import { createHash } from 'node:crypto';
import { createConnection, Socket } from 'node:net';
import { connect as connectTls, ConnectionOptions as TlsOptions } from 'node:tls';
import { RespErrorReply, RespReader, RespValue } from './resp-reader';

/** Where and how to connect: the settings of the ioredis client this connection serves. */
export interface RespTarget {
  host?: string;
  port?: number;
  /** A Unix socket path, instead of host and port. */
  path?: string;
  tls?: TlsOptions;
  username?: string | null;
  password?: string | null;
  db?: number | null;
  connectTimeoutMs: number;
}

/** A Lua script as this connection sends it: by SHA-1, with the source for NOSCRIPT. */
export interface RespScript {
  readonly sha: string;
  readonly source: string;
  /** `$4\r\nEVAL\r\n` plus the source as a bulk string: what replaces EVALSHA and the SHA. */
  readonly evalHead: string;
  /** `$7\r\nEVALSHA\r\n` plus the SHA as a bulk string. */
  readonly evalshaHead: string;
}

interface Waiter {
  resolve(value: RespValue | PromiseLike<RespValue>): void;
  reject(error: Error): void;
  /** The script and the command after its SHA, to send again as EVAL on NOSCRIPT. */
  script?: RespScript;
  body?: string;
  arrayHeader?: string;
  /** Where the reply comes from instead, if the command never left this process. */
  ifNotSent?: () => Promise<RespValue>;
}

/**
 * Pending commands go out once they reach this size, not only at the end of the event-loop
 * turn: Redis then works on the first commands while Node is still producing the rest,
 * instead of the two taking turns. bench/ measured 2 KB (about 16 counter commands, close
 * to redis-benchmark's -P 16) fastest of 1–64 KB: the counter went from ~130k to ~180k
 * decisions a second with 200 in flight.
 */
const FLUSH_AT_CHARS = 2048;
/** What CLIENT LIST shows for this connection, next to the ioredis client's own. */
export const CONNECTION_NAME = 'nestjs-limiter';
/** Answered slots at the head of the queue before it is compacted. */
const COMPACT_AT = 4096;

export function respScript(source: string): RespScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    sha,
    source,
    evalHead: '$4\r\nEVAL\r\n' + bulkString(source),
    evalshaHead: '$7\r\nEVALSHA\r\n' + bulkString(sha),
  };
}

/** One RESP bulk string: `$<bytes>\r\n<value>\r\n`. */
export function bulkString(value: string): string {
  return '$' + Buffer.byteLength(value) + '\r\n' + value + '\r\n';
}

/**
 * A command that never left this process before its connection closed: it cannot have run,
 * so the caller may send it another way without counting a request twice.
 */
export class CommandNotSentError extends Error {
  constructor(cause: Error) {
    super(`not sent: ${cause.message}`);
    this.name = 'CommandNotSentError';
  }
}

function command(args: readonly string[]): string {
  return '*' + args.length + '\r\n' + args.map(bulkString).join('');
}

/**
 * A RESP2 connection to one Redis that runs limiter scripts and nothing else.
 *
 * It does what ioredis does for a defined command (EVALSHA, EVAL once on NOSCRIPT, replies
 * in order) with none of its per-command objects: a command is one string, commands go out
 * every ~2 KB or at the end of the event-loop turn, and any number of writes may be in flight.
 * It never reconnects or queues while offline: once closed it rejects everything, and its
 * owner ({@link ScriptConnection}) decides whether to open another.
 */
export class RespConnection {
  private readonly socket: Socket;
  private readonly reader = new RespReader((value) => this.answer(value));
  private readonly waiters: (Waiter | undefined)[] = [];
  private head = 0;
  /** Waiters from this index on wait for commands still in `outgoing`, not yet written. */
  private unsentFrom = 0;
  private outgoing = '';
  private flushScheduled = false;
  private closedWith?: Error;
  /** The end-of-turn write, scheduled once per turn. */
  private readonly flushAtEndOfTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  private flush(): void {
    if (this.outgoing === '' || this.closedWith) return;
    // Ended by Redis (CLIENT KILL, a restart) but not yet closed here: nothing may go out.
    if (!this.socket.writable) {
      this.close(new Error('Redis closed the script connection'));
      return;
    }
    this.socket.write(this.outgoing);
    this.outgoing = '';
    this.unsentFrom = this.waiters.length;
  }

  /** Resolves once connected and authenticated; rejects if that fails. */
  readonly ready: Promise<void>;

  constructor(
    target: RespTarget,
    /** Loaded while connecting, so that a cold start under load sends no EVAL of whole scripts. */
    scripts: readonly RespScript[],
    private readonly onClose: (connection: RespConnection, error: Error) => void,
  ) {
    this.socket = open(target);
    this.socket.setNoDelay(true);
    // An accessory of the ioredis client, whose own socket keeps the process alive.
    this.socket.unref();
    this.socket.on('data', (chunk: Buffer) => {
      try {
        this.reader.feed(chunk);
      } catch (error) {
        // A stream we cannot read must cost the requests on it, never the process.
        this.close(error as Error);
      }
    });
    this.socket.on('end', () => this.close(new Error('Redis closed the script connection')));
    this.socket.on('error', (error) => this.close(error));
    this.socket.on('close', () => this.close(new Error('the script connection closed')));
    this.ready = this.handshake(target, scripts);
    this.ready.catch((error: Error) => this.close(error));
  }

  /**
   * Runs `script` on one key. `args` are the ARGV as consecutive bulk strings (see
   * {@link bulkString}), `argCount` how many there are. If the connection closes before the
   * command is written, the reply comes from `ifNotSent`, or the promise rejects with
   * {@link CommandNotSentError}.
   */
  evalsha(
    script: RespScript,
    key: string,
    args: string,
    argCount: number,
    ifNotSent?: () => Promise<RespValue>,
  ): Promise<RespValue> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const arrayHeader = '*' + (argCount + 4) + '\r\n';
    const body = '$1\r\n1\r\n' + bulkString(key) + args;
    return new Promise<RespValue>((resolve, reject) => {
      this.waiters.push({ resolve, reject, script, body, arrayHeader, ifNotSent });
      this.write(arrayHeader + script.evalshaHead + body);
    });
  }

  /**
   * Closes the socket and rejects every command still waiting: with `error` when it was
   * written, with {@link CommandNotSentError} when it never left this process.
   */
  close(error: Error = new Error('the script connection was closed')): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.socket.destroy();
    this.reader.reset();
    const notSent = new CommandNotSentError(error);
    for (let i = this.head; i < this.waiters.length; i++) {
      const waiter = this.waiters[i];
      if (!waiter) continue;
      if (i < this.unsentFrom) waiter.reject(error);
      else if (waiter.ifNotSent) waiter.resolve(waiter.ifNotSent());
      else waiter.reject(notSent);
    }
    this.waiters.length = 0;
    this.head = 0;
    this.unsentFrom = 0;
    this.outgoing = '';
    this.onClose(this, error);
  }

  private async handshake(target: RespTarget, scripts: readonly RespScript[]): Promise<void> {
    const timer = setTimeout(
      () => this.close(new Error(`no connection within ${target.connectTimeoutMs} ms`)),
      target.connectTimeoutMs,
    );
    timer.unref();
    try {
      await new Promise<void>((resolve, reject) => {
        this.socket.once(target.tls ? 'secureConnect' : 'connect', resolve);
        this.socket.once('close', () => reject(this.closedWith ?? new Error('connection closed')));
      });
      const setup: Promise<unknown>[] = [];
      if (target.password) {
        const auth = target.username
          ? ['AUTH', target.username, target.password]
          : ['AUTH', target.password];
        // As ioredis does: a password the server does not ask for is not an error.
        setup.push(this.send(auth).catch(unlessNoPasswordIsSet));
      }
      if (target.db) setup.push(this.send(['SELECT', String(target.db)]));
      // Conveniences, not needs: an ACL without CLIENT or SCRIPT still runs the scripts.
      const optional = (args: string[]) => this.send(args).catch(() => undefined);
      setup.push(optional(['CLIENT', 'SETNAME', CONNECTION_NAME]));
      for (const script of scripts) setup.push(optional(['SCRIPT', 'LOAD', script.source]));
      await Promise.all(setup); // an error reply of AUTH or SELECT fails the connection
    } finally {
      clearTimeout(timer);
    }
  }

  private send(args: readonly string[]): Promise<RespValue> {
    return new Promise<RespValue>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.write(command(args));
    });
  }

  private write(data: string): void {
    this.outgoing += data;
    if (this.outgoing.length >= FLUSH_AT_CHARS) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushAtEndOfTurn);
    }
  }

  private answer(value: RespValue): void {
    const waiter = this.waiters[this.head];
    if (!waiter) {
      this.close(new Error('Redis sent a reply nobody asked for'));
      return;
    }
    this.waiters[this.head++] = undefined;
    if (this.head === this.waiters.length) {
      this.waiters.length = 0;
      this.head = 0;
      this.unsentFrom = 0;
    } else if (this.head >= COMPACT_AT) {
      this.waiters.splice(0, this.head);
      this.unsentFrom -= this.head;
      this.head = 0;
    }
    if (!(value instanceof RespErrorReply)) waiter.resolve(value);
    else if (waiter.script && value.message.startsWith('NOSCRIPT')) {
      // A restarted Redis or SCRIPT FLUSH: EVAL runs the script and caches it again.
      const { script, body, arrayHeader } = waiter;
      // Redis ran nothing: should this EVAL not go out either, the fallback may still run it.
      this.waiters.push({
        resolve: waiter.resolve,
        reject: waiter.reject,
        ifNotSent: waiter.ifNotSent,
      });
      this.write(arrayHeader + script.evalHead + body);
    } else waiter.reject(new Error(value.message));
  }
}

function unlessNoPasswordIsSet(error: Error): void {
  if (!/without any password configured|no password is set/i.test(error.message)) throw error;
}

function open(target: RespTarget): Socket {
  if (target.tls) {
    return connectTls({ ...target.tls, host: target.host, port: target.port, path: target.path });
  }
  return target.path
    ? createConnection({ path: target.path })
    : createConnection({ host: target.host, port: target.port ?? 6379 });
}
