import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import type { EngineScript } from './script';

/** How Redis answers FCALL of a function it lacks: after FUNCTION FLUSH, a restart, a new node. */
export const FUNCTION_NOT_FOUND = /Function not found/i;

/**
 * How Redis refuses FCALL itself, whatever the function: an ACL user without the `fcall`
 * permission (one that may still load libraries), or a server with the command renamed away.
 * Nothing of the call ran, so it goes again as a script.
 */
const FCALL_REFUSED = /^NOPERM .*'fcall'|^ERR unknown command .?fcall/i;

/** What this process has logged of the engine's call path: each choice once, not per store. */
const LOGGED = new Set<string>();

/** Replies that say the server is busy or moving, not that it refuses Functions. */
const PASSING = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|MOVED|ASK)\b/;

/** Whether an error refuses FUNCTION LOAD for good (Redis 6, KeyDB, a renamed command, an ACL). */
function refusesFunctions(error: unknown): boolean {
  const { name, message } = (error ?? {}) as Partial<Error>;
  return name === 'ReplyError' && !PASSING.test(message ?? '');
}

/**
 * Whether the engine runs as the Functions library (FCALL) or as a script (EVALSHA), and the
 * library's loading: once per server (every Cluster master, and a node seen for the first
 * time), again whenever a call finds it missing. Until the first load has answered, and
 * where Functions are refused, batches go as EVALSHA; the choice is logged once.
 */
export class EngineFunctions {
  private mode: 'unknown' | 'functions' | 'scripts' = 'unknown';
  private loading?: Promise<void>;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly logger = new Logger('RateLimiter'),
  ) {
    if (client.isCluster) {
      // A master that joins, or a replica promoted without the library: loaded at once.
      client.on('+node', (node: Redis) => {
        if (this.mode === 'functions' && this.library) this.loadOn(node).catch(() => undefined);
      });
    }
  }

  private library?: string;

  /** Whether `engine`'s batches go as FCALL: its library is loaded. */
  uses(engine: EngineScript): boolean {
    return this.mode === 'functions' && engine.library !== undefined;
  }

  /**
   * Loads `engine`'s library on every master, one load at a time; settles when it has
   * answered, never rejects. An engine without a library (an algorithm of the app's own)
   * runs as a script.
   */
  prepare(engine: EngineScript): Promise<void> {
    if (this.mode !== 'unknown' || engine.library === undefined) return Promise.resolve();
    this.library = engine.library;
    this.loading ??= this.load(engine).finally(() => (this.loading = undefined));
    return this.loading;
  }

  /**
   * One engine call: FCALL of the library's function where it is loaded, else `script()`
   * (EVALSHA). A library found missing (FUNCTION FLUSH, a restart without persistence, a
   * master that never had it) is loaded again, and this call goes at once as a script, as
   * NOSCRIPT does: it ran nothing, so nothing is counted twice and no decision is lost.
   */
  call(
    target: Redis | Cluster,
    engine: EngineScript,
    args: string[],
    script: () => Promise<unknown>,
  ): Promise<unknown> {
    if (!this.uses(engine)) return script();
    return target.call('FCALL', engine.functionName, ...args).catch((error: unknown) => {
      if (!this.ranNothing(error, engine)) throw error;
      return script();
    });
  }

  /**
   * Whether an FCALL's error says it ran nothing and the call may go again as a script: the
   * library missing (loaded again meanwhile) or FCALL refused (scripts from now on).
   */
  ranNothing(error: unknown, engine: EngineScript): boolean {
    const message = (error as Error | undefined)?.message ?? '';
    if (FUNCTION_NOT_FOUND.test(message)) {
      this.lost(engine);
      return true;
    }
    if (!FCALL_REFUSED.test(message)) return false;
    this.follow(false, message.split('\n')[0].replace(/, with args beginning with.*$/, ''));
    return true;
  }

  /**
   * Follows what the endpoint was found to take, at each probe (after every reconnect: a
   * failover may land on a server, or a user, without Functions) and when FCALL is refused:
   * without Functions, scripts at once; with them again, the library is loaded again and
   * batches go as FCALL once it answers.
   */
  follow(functions: boolean | undefined, cause = 'the probe found no Functions'): void {
    if (functions === false && this.mode !== 'scripts') {
      const was = this.mode;
      this.mode = 'scripts';
      // Before any FCALL, the load's outcome says it (load below).
      if (was === 'functions') {
        this.logger.warn(`Redis refused FCALL (${cause}): decisions run as scripts (EVALSHA)`);
      }
    } else if (functions === true && this.mode === 'scripts') {
      this.mode = 'unknown';
      this.logger.log('Redis takes FCALL again: the engine library is loaded again');
    }
  }

  /** A call found the library missing: batches go as scripts until it is loaded again. */
  lost(engine: EngineScript): void {
    if (this.mode === 'functions') this.mode = 'unknown';
    void this.prepare(engine);
  }

  private async load(engine: EngineScript): Promise<void> {
    const masters = this.client.isCluster
      ? (this.client as Cluster).nodes('master')
      : [this.client];
    // A Cluster not connected yet knows no master: decided on a later call.
    if (masters.length === 0) return;
    try {
      await Promise.all(masters.map((node) => this.loadOn(node as Redis)));
      // A probe found FCALL refused while the library loaded (a user that may load it only).
      if (this.mode === 'scripts') {
        return this.logOnce(
          `Redis refused FCALL (${engine.libraryName} loaded): decisions run as scripts (EVALSHA)`,
        );
      }
      this.mode = 'functions';
      this.logOnce(`Redis Functions library ${engine.libraryName} loaded: decisions run as FCALL`);
    } catch (error) {
      // Unreachable or busy: decided on a later call; meanwhile batches go as scripts.
      if (!refusesFunctions(error)) return;
      this.mode = 'scripts';
      this.logOnce(
        `Redis refused Functions (${(error as Error).message.trim()}): decisions run as scripts (EVALSHA)`,
      );
    }
  }

  /** Same versioned name, same text: REPLACE is only ever this library over itself. */
  private loadOn(node: Redis): Promise<unknown> {
    return node.call('FUNCTION', 'LOAD', 'REPLACE', this.library!);
  }

  private logOnce(message: string): void {
    if (LOGGED.has(message)) return;
    LOGGED.add(message);
    this.logger.log(message);
  }
}
