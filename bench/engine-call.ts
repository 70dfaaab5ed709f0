// Where one engine call's time goes (`npm run bench -- --engine-call [--before=<library>]`,
// issue 40 item 4): the counter's one-decision call, on one redis-server, the variants
// interleaved, medians of 7 rounds.
//   - per call (commandstats µs of FCALL or EVALSHA): the engine; a function that runs only
//     the counter's commands (TIME, INCRBY, PTTL, PEXPIRE) inside the engine's library, in a
//     library of its own, and as a script: the library's size and the engine's Lua apart;
//   - inside one FCALL, 2,000 decisions in a Lua loop (redis-server CPU per decision, which a
//     preempted call does not count): the engine, and the commands alone.
// With --before, the engine rows again on that library (another build's library.generated.lua).
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { commandStats, KEYS } from './engine-cost';
import { LIBRARY } from './engine-floor';
import { redisCpuSeconds, standaloneRedis } from './redis';
import { inRoundOrder, median, medianRoundRatio } from './stats';

const ROUNDS = 7;
const CALLS = 5_000;
const LOOP = 2_000;
// The counter's packed entry as the store sends it for `limit: 1e9, period: 60`.
const COUNTER = '8\0\x003\x000\x001000000000\x0060000\0';
const COMMANDS = `local t = redis.call('TIME')
redis.call('INCRBY', KEYS[1], '1')
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], 60000) end
return t[1] .. '\\0' .. '1,1,1,0,0\\0'`;
const COMMANDS_FUNCTION = (suffix: string) =>
  `redis.register_function('bench_commands${suffix}', function(KEYS, ARGV) ${COMMANDS} end)`;
/** In the library's chunk, where `engine` is its local: the bench's functions. */
const LOOPS = (suffix: string) => `
${COMMANDS_FUNCTION(suffix)}
redis.register_function('bench_loop${suffix}', function(_, args)
  for i = 1, ${LOOP} do engine({'countLimit:loop:' .. (args[2] + i)}, {'', args[1]}) end
end)
redis.register_function('bench_loop_commands${suffix}', function(_, args)
  for i = 1, ${LOOP} do
    local key = 'countLimit:loop:' .. (args[2] + i)
    redis.call('TIME')
    redis.call('INCRBY', key, '1')
    if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, 60000) end
  end
end)`;

/** The library under a name of the bench's, with the bench's functions (its own keep theirs). */
const named = (library: string, name: string, suffix: string) =>
  library.replace(/^#!lua name=\S+/, `#!lua name=${name}`) + LOOPS(suffix);

type Variant = [string, (admin: Redis, key: string) => Promise<unknown>];

export async function engineCall(log: (line: string) => void, beforeFile?: string): Promise<void> {
  const redis = await standaloneRedis();
  const admin = redis.client(false) as Redis;
  try {
    const libraries: [string, string][] = [['', readFileSync(LIBRARY, 'utf8')]];
    if (beforeFile) libraries.push([' before', readFileSync(beforeFile, 'utf8')]);
    const perCall: Variant[] = [];
    const inLoop: Variant[] = [];
    for (const [i, [label, library]] of libraries.entries()) {
      const engine = /^#!lua name=(\S+)/.exec(library)![1];
      await admin.function('LOAD', 'REPLACE', named(library, `bench_engine_${i}`, `_${i}`));
      const fn = (name: string) => (a: Redis, key: string) => a.fcall(name, 1, key, '', COUNTER);
      perCall.push([`the engine${label}`, fn(engine)]);
      if (i === 0) {
        perCall.push(['its commands, in the engine library', fn(`bench_commands_${i}`)]);
      }
      let base = 0;
      inLoop.push([
        `the engine${label}`,
        (a) => a.fcall(`bench_loop_${i}`, 0, COUNTER, String((base += LOOP))),
      ]);
      if (i === 0) {
        inLoop.push([
          'its commands',
          (a) => a.fcall(`bench_loop_commands_${i}`, 0, COUNTER, String((base += LOOP))),
        ]);
      }
    }
    await admin.function(
      'LOAD',
      'REPLACE',
      `#!lua name=bench_alone\n${COMMANDS_FUNCTION('_alone')}`,
    );
    perCall.push([
      'its commands, in a library of their own',
      (a, key) => a.fcall('bench_commands_alone', 1, key, '', COUNTER),
    ]);
    const sha = (await admin.script('LOAD', COMMANDS)) as string;
    perCall.push([
      'its commands, as a script (EVALSHA)',
      (a, key) => a.evalsha(sha, 1, key, '', COUNTER),
    ]);
    const rows = new Map<string, number[]>();
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [label, call] of inRoundOrder(perCall, round)) {
        await admin.flushall();
        await admin.config('RESETSTAT');
        for (let n = 0; n < CALLS; n++) await call(admin, `countLimit:${KEYS[n % KEYS.length]}`);
        const stats = await commandStats(admin);
        const usec = (stats.fcall?.usec ?? 0) + (stats.evalsha?.usec ?? 0);
        if (round > 0)
          rows.set(`per call: ${label}`, [...(rows.get(`per call: ${label}`) ?? []), usec / CALLS]);
      }
      for (const [label, call] of inRoundOrder(inLoop, round)) {
        await admin.flushall();
        const cpu = await redisCpuSeconds(redis);
        for (let n = 0; n < 5; n++) await call(admin, '');
        const us = (((await redisCpuSeconds(redis)) - cpu) * 1e6) / (5 * LOOP);
        if (round > 0)
          rows.set(`in a Lua loop: ${label}`, [...(rows.get(`in a Lua loop: ${label}`) ?? []), us]);
      }
    }
    log(
      `the counter's one-decision call, medians of ${ROUNDS} rounds (per call: commandstats µs; in a Lua loop: redis-server CPU µs per decision)`,
    );
    for (const [label, values] of rows) log(`  ${label}: ${median(values).toFixed(2)}`);
    if (!beforeFile) return;
    for (const where of ['per call', 'in a Lua loop']) {
      const ratio = medianRoundRatio(
        rows.get(`${where}: the engine`)!,
        rows.get(`${where}: the engine before`)!,
      );
      log(
        `  ${where}, the engine after / before: ${ratio.toFixed(2)}× (median of per-round ratios)`,
      );
    }
  } finally {
    await redis.stop();
  }
}
