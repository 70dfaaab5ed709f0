// One hot key (`npm run bench -- --hot-key`): decisions/s and Redis commands per decision on
// one counter key, 200 in flight in each of 1 or 3 app processes, with each decision its own
// entry (one by one) and with a call's decisions coalesced. Commands per decision do not
// depend on the machine's load; decisions/s do, so compare the rows of one run.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { LoadResult } from './load';
import { HotKeyMode } from './hot-key-worker';
import { commandCounts, countsSince, standaloneRedis } from './redis';

const MODES: HotKeyMode[] = ['one by one', 'coalesced'];

export interface HotKeyRow {
  mode: HotKeyMode;
  processes: number;
  perSecond: number;
  commandsPerDecision: number;
  scriptCallsPerDecision: number;
}

async function measure(
  url: string,
  mode: HotKeyMode,
  processes: number,
  total: number,
): Promise<LoadResult[]> {
  const children = Array.from({ length: processes }, () =>
    fork(join(__dirname, 'hot-key-worker.js'), [mode, url, String(total)], { stdio: 'inherit' }),
  );
  const message = (child: (typeof children)[0]) =>
    new Promise<unknown>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => code && reject(new Error(`worker exited with ${code}`)));
    });
  await Promise.all(children.map(message));
  const results = children.map(message);
  for (const child of children) child.send('go');
  return (await Promise.all(results)) as LoadResult[];
}

export async function hotKeyBench(
  log: (line: string) => void,
  total = 20_000,
): Promise<HotKeyRow[]> {
  const redis = await standaloneRedis();
  const rows: HotKeyRow[] = [];
  try {
    for (const processes of [1, 3]) {
      for (const mode of MODES) {
        await redis.onEachMaster('FLUSHALL');
        const before = await commandCounts(redis);
        const started = performance.now();
        const results = await measure(redis.url, mode, processes, total);
        const seconds = (performance.now() - started) / 1000;
        const counts = countsSince(before, await commandCounts(redis));
        const decisions = results.reduce((sum, r) => sum + r.decisions, 0);
        rows.push({
          mode,
          processes,
          // Every process's decisions over the wall time from 'go' to the last answer.
          perSecond: decisions / seconds,
          commandsPerDecision: counts.all / decisions,
          scriptCallsPerDecision: counts.scripts / decisions,
        });
      }
    }
  } finally {
    await redis.stop();
  }
  log(
    '| processes | decisions | decisions/s | Redis commands / decision | script calls / decision |',
  );
  log('|---|---|---|---|---|');
  for (const row of rows) {
    log(
      `| ${row.processes} | ${row.mode} | ${Math.round(row.perSecond)} | ` +
        `${row.commandsPerDecision.toFixed(3)} | ${row.scriptCallsPerDecision.toFixed(3)} |`,
    );
  }
  return rows;
}
