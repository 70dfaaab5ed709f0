import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stopProcess } from './redis-server';

/** The child scripts, from the tests or from the bench's compiled copy of this file. */
const CHILD_APPS = existsSync(join(__dirname, 'child-app'))
  ? join(__dirname, 'child-app')
  : join(__dirname, '..', '..', '..', '..', 'test', 'helpers', 'child-app');
const REGISTER_TS = join(CHILD_APPS, 'register-ts.js');

/** The mock upstream of child-app/mock-upstream.ts, running in a process of its own. */
export interface MockUpstream {
  url: string;
  process: ChildProcess;
  /** `POST /control` with these settings. */
  control(settings: Record<string, string | number>): Promise<void>;
  /** The arrivals since `sinceMs` (epoch): [time, status, tenant]. */
  log(sinceMs?: number): Promise<Array<[number, number, string]>>;
  stop(): Promise<void>;
}

export async function startMockUpstream(env: Record<string, string> = {}): Promise<MockUpstream> {
  const child = spawnScript('mock-upstream.ts', env);
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the mock printed no port:\n${output}`)),
      60_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^PORT (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}):\n${output}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    process: child,
    control: async (settings) => {
      const query = new URLSearchParams(
        Object.entries(settings).map(([key, value]): [string, string] => [key, String(value)]),
      );
      await (await fetch(`${url}/control?${query}`, { method: 'POST' })).text();
    },
    log: async (sinceMs = 0) => (await fetch(`${url}/log?since=${sinceMs}`)).json() as never,
    stop: () => stopProcess(child),
  };
}

function spawnScript(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', REGISTER_TS, join(CHILD_APPS, script)], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** What one caller process counted: answers by status, and calls that were busy. */
export interface CallerResult {
  status: Record<string, number>;
  busy: number;
}

interface Caller {
  child: ChildProcess;
  ready: Promise<void>;
  /** The next run's result (the RESULT line after the last one read). */
  result(): Promise<CallerResult>;
}

function spawnCaller(env: Record<string, string>): Caller {
  const child = spawnScript('upstream-caller.ts', env);
  let output = '';
  let read = 0;
  let waiting: { resolve(result: CallerResult): void; reject(error: Error): void } | undefined;
  let exited: Error | undefined;
  const deliver = () => {
    if (!waiting) return;
    if (exited) return waiting.reject(exited);
    const match = /^RESULT (.*)$/m.exec(output.slice(read));
    if (!match) return;
    read += match.index! + match[0].length;
    const { resolve } = waiting;
    waiting = undefined;
    resolve(JSON.parse(match[1]) as CallerResult);
  };
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => onData(chunk));
    child.stderr!.on('data', (chunk: Buffer) => onData(chunk));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/^READY$/m.test(output)) resolve();
      deliver();
    };
    child.once('exit', (code) => {
      exited = new Error(`caller exited (${code}):\n${output}`);
      reject(exited);
      deliver();
    });
  });
  ready.catch(() => undefined);
  const result = () =>
    new Promise<CallerResult>((resolve, reject) => {
      waiting = { resolve, reject };
      deliver();
    });
  return { child, ready, result };
}

/** Caller processes started once, for several runs. */
export interface CallerFleet {
  /**
   * One run of every caller, all started at one moment, for `durationMs`; resolves with each
   * one's result when all have ended. `onStart` is told the moment (epoch ms).
   */
  run(durationMs: number, onStart?: (startAt: number) => void): Promise<CallerResult[]>;
  stop(): Promise<void>;
}

/** Starts caller processes (one per env) and resolves once every one is ready. */
export async function startCallers(envs: Array<Record<string, string>>): Promise<CallerFleet> {
  const callers = envs.map(spawnCaller);
  const stop = async () => {
    await Promise.all(callers.map((caller) => stopProcess(caller.child, 'SIGKILL')));
  };
  try {
    await Promise.all(callers.map((caller) => caller.ready));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    run: async (durationMs, onStart) => {
      const results = callers.map((caller) => caller.result());
      // Time for each caller to open its connections to the upstream before the start.
      const startAt = Date.now() + 300;
      for (const caller of callers) caller.child.stdin!.write(`GO ${startAt} ${durationMs}\n`);
      onStart?.(startAt);
      return Promise.all(results);
    },
    stop,
  };
}

/**
 * Runs caller processes (one per env, each for its `DURATION_MS`, default 5 s), all started
 * at one moment once every one is ready, and resolves with each one's result when all have
 * ended. `startAt` is told the moment.
 */
export async function runCallers(
  envs: Array<Record<string, string>>,
  onStart?: (startAt: number) => void,
): Promise<CallerResult[]> {
  const fleet = await startCallers(envs);
  try {
    return await fleet.run(Number(envs[0]?.DURATION_MS ?? 5000), onStart);
  } finally {
    await fleet.stop();
  }
}
