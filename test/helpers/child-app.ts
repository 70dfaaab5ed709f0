import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stopProcess } from './redis-server';

const REGISTER_TS = join(__dirname, 'child-app', 'register-ts.js');

/** An app running in a process of its own: its event loop is not the test's. */
export interface ChildApp {
  port: number;
  process: ChildProcess;
  /** What the child wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Runs a TypeScript script of `test/helpers/child-app` in a child process. */
export function spawnChildScript(script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', REGISTER_TS, join(__dirname, 'child-app', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts a script that prints `PORT <n>` once its app listens, and waits for that line. */
export function startChildApp(
  script: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<ChildApp> {
  const child = spawnChildScript(script, env);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} printed no port within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^PORT (\d+)$/m.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        port: Number(match[1]),
        process: child,
        output: () => output,
        stop: () => stopProcess(child),
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before listening:\n${output}`));
    });
  });
}
