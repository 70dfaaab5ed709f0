import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { stopProcess } from './redis-server';

/** The scripts' folder in the sources, also when this file runs compiled (bench/dist/test/helpers). */
const CHILD_APPS = __dirname.endsWith(join('dist', 'test', 'helpers'))
  ? join(__dirname, '..', '..', '..', '..', 'test', 'helpers', 'child-app')
  : join(__dirname, 'child-app');
const REGISTER_TS = join(CHILD_APPS, 'register-ts.js');

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
  return spawn(process.execPath, ['-r', REGISTER_TS, join(CHILD_APPS, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves once `child` has printed `marker` on stdout; rejects if it exits first. */
export function printed(child: ChildProcess, marker: RegExp): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited (${code}) before ${marker}: ${output}`)));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!marker.test(output)) return;
      child.stdout!.off('data', onData);
      resolve();
    };
    child.stdout!.on('data', onData);
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

/** What a child that must exit by itself did: its output, and 'exit <code>' or why not. */
export interface ExitOutcome {
  output: string;
  outcome: string;
}

/**
 * Waits for `child` to print `marker` (within `printWithinMs`: loading the app takes seconds
 * on a busy machine), then for it to exit by itself within `exitWithinMs` of that; kills it
 * if it does not.
 */
export async function exitAfterPrinting(
  child: ChildProcess,
  marker: RegExp,
  exitWithinMs: number,
  printWithinMs = 60_000,
): Promise<ExitOutcome> {
  let output = '';
  let exitTimer: NodeJS.Timeout | undefined;
  const outcome = await new Promise<string>((resolve) => {
    const printTimer = setTimeout(() => resolve(`printed no ${marker}`), printWithinMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (exitTimer || !marker.test(output)) return;
      clearTimeout(printTimer);
      exitTimer = setTimeout(() => resolve('still running'), exitWithinMs);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(printTimer);
      resolve(exitTimer || marker.test(output) ? `exit ${code}` : `exit ${code} before ${marker}`);
    });
  });
  clearTimeout(exitTimer);
  await stopProcess(child, 'SIGKILL');
  return { output, outcome };
}
