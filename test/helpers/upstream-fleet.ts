import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ChildApp, startChildApp } from './child-app';
import { stopProcess } from './redis-server';

const REGISTER_TS = join(__dirname, 'child-app', 'register-ts.js');

/** The mock upstream of child-app/mock-upstream.ts, running in a process of its own. */
export interface MockUpstream {
  url: string;
  app: ChildApp;
  /** `POST /control` with these settings. */
  control(settings: Record<string, string | number>): Promise<void>;
  /** The arrivals since `sinceMs` (epoch): [time, status, tenant]. */
  log(sinceMs?: number): Promise<Array<[number, number, string]>>;
  stop(): Promise<void>;
}

export async function startMockUpstream(env: Record<string, string> = {}): Promise<MockUpstream> {
  const app = await startChildApp('mock-upstream.ts', env, 60_000);
  const url = `http://127.0.0.1:${app.port}`;
  return {
    url,
    app,
    control: async (settings) => {
      const query = new URLSearchParams(
        Object.entries(settings).map(([key, value]): [string, string] => [key, String(value)]),
      );
      await (await fetch(`${url}/control?${query}`, { method: 'POST' })).text();
    },
    log: async (sinceMs = 0) => (await fetch(`${url}/log?since=${sinceMs}`)).json() as never,
    stop: () => app.stop(),
  };
}

/** What one caller process counted: answers by status, and calls that were busy. */
export interface CallerResult {
  status: Record<string, number>;
  busy: number;
}

interface Caller {
  child: ChildProcess;
  output: () => string;
  ready: Promise<void>;
  result: Promise<CallerResult>;
}

function spawnCaller(env: Record<string, string>): Caller {
  const script = join(__dirname, 'child-app', 'upstream-caller.ts');
  const child = spawn(process.execPath, ['-r', REGISTER_TS, script], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let onReady: () => void;
  let onResult: (result: CallerResult) => void;
  let onFail: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  const result = new Promise<CallerResult>((resolve, reject) => {
    onResult = resolve;
    const fail = onFail;
    onFail = (error) => {
      fail(error);
      reject(error);
    };
  });
  result.catch(() => undefined);
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    if (/^READY$/m.test(output)) onReady();
    const match = /^RESULT (.*)$/m.exec(output);
    if (match) onResult(JSON.parse(match[1]) as CallerResult);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.once('exit', (code) => {
    if (!/^RESULT /m.test(output)) onFail(new Error(`caller exited (${code}):\n${output}`));
  });
  return { child, output: () => output, ready, result };
}

/**
 * Runs caller processes (one per env), all started at one moment once every one is ready,
 * and resolves with each one's result when all have ended. `startAt` is told the moment.
 */
export async function runCallers(
  envs: Array<Record<string, string>>,
  onStart?: (startAt: number) => void,
): Promise<CallerResult[]> {
  const callers = envs.map(spawnCaller);
  try {
    await Promise.all(callers.map((caller) => caller.ready));
    const startAt = Date.now() + 300;
    for (const caller of callers) caller.child.stdin!.write(`GO ${startAt}\n`);
    onStart?.(startAt);
    return await Promise.all(callers.map((caller) => caller.result));
  } finally {
    await Promise.all(callers.map((caller) => stopProcess(caller.child, 'SIGKILL')));
  }
}
