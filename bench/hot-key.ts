// One hot key (`npm run bench -- --hot-key`): decisions/s and Redis commands per decision on
// one counter key, 1 or 200 in flight in each of 1 or 3 app processes, with each decision its own
// entry (one by one), with a call's decisions coalesced, and with leases of 100 permits.
// Commands per decision do not depend on the machine's load; decisions/s do, so compare the
// rows of one run.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { LoadResult } from './load';
import { HotKeyMode } from './hot-key-worker';
import { commandCounts, countsSince, standaloneRedis } from './redis';
import { median } from './stats';

const MODES: HotKeyMode[] = ['one by one', 'coalesced', 'lease: 100'];
const ROUNDS = 3;

export interface HotKeyRow {
  mode: HotKeyMode;
  processes: number;
  inFlight: number;
  perSecond: number;
  commandsPerDecision: number;
  scriptCallsPerDecision: number;
}

async function measure(
  url: string,
  mode: HotKeyMode,
  processes: number,
  total: number,
  inFlight: number,
): Promise<LoadResult[]> {
  const args = [mode, url, String(total), String(inFlight)];
  const children = Array.from({ length: processes }, () =>
    fork(join(__dirname, 'hot-key-worker.js'), args, { stdio: 'inherit' }),
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
    for (const [inFlight, decisions] of [
      [1, total / 4],
      [200, total],
    ]) {
      for (const processes of [1, 3]) {
        // Rounds interleaved, each row its median: the machine's load moves between rounds.
        const perRound = new Map<HotKeyMode, HotKeyRow[]>(MODES.map((mode) => [mode, []]));
        for (let round = 0; round < ROUNDS; round++) {
          for (const mode of MODES) {
            await redis.onEachMaster('FLUSHALL');
            const before = await commandCounts(redis);
            const results = await measure(redis.url, mode, processes, decisions, inFlight);
            const counts = countsSince(before, await commandCounts(redis));
            const made = results.reduce((sum, r) => sum + r.decisions, 0);
            perRound.get(mode)!.push({
              mode,
              processes,
              inFlight,
              // The processes ran at once: their rates add up.
              perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
              commandsPerDecision: counts.all / made,
              scriptCallsPerDecision: counts.scripts / made,
            });
          }
        }
        for (const measured of perRound.values()) {
          const at = (figure: (row: HotKeyRow) => number) => median(measured.map(figure));
          rows.push({
            ...measured[0],
            perSecond: at((row) => row.perSecond),
            commandsPerDecision: at((row) => row.commandsPerDecision),
            scriptCallsPerDecision: at((row) => row.scriptCallsPerDecision),
          });
        }
      }
    }
  } finally {
    await redis.stop();
  }
  log(
    '| in flight per process | processes | decisions | decisions/s | Redis commands / decision | script calls / decision |',
  );
  log('|---|---|---|---|---|---|');
  for (const row of rows) {
    log(
      `| ${row.inFlight} | ${row.processes} | ${row.mode} | ${Math.round(row.perSecond)} | ` +
        `${row.commandsPerDecision.toFixed(3)} | ${row.scriptCallsPerDecision.toFixed(3)} |`,
    );
  }
  return rows;
}
