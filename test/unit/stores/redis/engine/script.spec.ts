import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_ALGORITHMS } from '../../../../../src/algorithms/built-in-algorithms';
import { BUILT_IN_ENGINE, ENGINE_LIBRARY } from '../../../../../src/stores/redis/engine/script';

// The composer is the build's own script (plain JavaScript, run by npm run engine:library).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { composeEngineLibrary } = require('../../../../../scripts/engine-library.js') as {
  composeEngineLibrary(): string;
};

/** The engine library is composed of real .lua files, each piece of it written once. */
describe('the engine library', () => {
  const lua = ENGINE_LIBRARY;
  const src = join(__dirname, '..', '..', '..', '..', '..', 'src');
  const withoutComments = (file: string) =>
    readFileSync(join(src, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
      .join('\n')
      .trim();

  it('is the golden file the build composes from the .lua files: run npm run engine:library after a change', () => {
    expect(composeEngineLibrary()).toBe(lua);
  });

  it('carries its version in its name and in its functions', () => {
    const name = /^#!lua name=(nestjs_limiter_[0-9a-f]{12})\n/.exec(lua)?.[1];
    expect(name).toBeDefined();
    expect(BUILT_IN_ENGINE.libraryName).toBe(name);
    expect(BUILT_IN_ENGINE.functionName).toBe(name);
    expect(BUILT_IN_ENGINE.forCrossSlot().functionName).toBe(`${name}_across_slots`);
    expect(lua).toContain(`redis.register_function('${name}', engine)`);
    expect(lua).toContain(`function_name = '${name}_across_slots'`);
  });

  it('defines each local function once', () => {
    const names = [...lua.matchAll(/^\s*local function (\w+)/gm)].map((match) => match[1]);
    const repeated = names.filter((name, i) => names.indexOf(name) !== i);
    expect(repeated).toEqual([]);
    expect(names.length).toBeGreaterThan(30);
  });

  // The buckets keep the options (and a decorator's timeout) they were written under and cut a
  // state written under others, and a denial's block is cut to the current block (state under
  // older options): 45 lines.
  it('stays under 1,085 lines for the seven algorithms, and 1,410 with the coalesced forms of five, so it can be read as one piece', () => {
    const coalesced =
      /^local function (\w+_coalesced|coalesced_acquire|limiter\w+Coalesced)\(.*?^end$/gms;
    expect(lua.replace(coalesced, '').split('\n').length).toBeLessThan(1085);
    expect(lua.split('\n').length).toBeLessThan(1410);
  });

  it('rolls the approximate window in one function, which the acquire, the charge and the coalesced acquire call', () => {
    // The acquire also takes the texts its write reuses.
    const call = /local index, curr, prev(, \w+)* = approximate_roll\(key, now, window\)/g;
    expect(lua.split('local function approximate_roll(').length - 1).toBe(1);
    expect(lua.match(call)).toHaveLength(3);
  });

  it.each([
    'algorithms/rate-limit/rate-limit.lua',
    'algorithms/count-limit/count-limit.lua',
    'algorithms/sliding-window-limit/sliding-window-limit.lua',
    'algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.lua',
    'algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.roll.lua',
    'algorithms/leaky-bucket-limit/leaky-bucket-limit.lua',
    'algorithms/concurrency-limit/concurrency-limit.lua',
    'algorithms/count-limit/count-limit.refund.lua',
    'algorithms/count-limit/count-limit.coalesced.lua',
    'algorithms/state-ops/coalesced.lua',
    'algorithms/state-ops/string-block.lua',
    'algorithms/state-ops/zset-block.lua',
    'stores/redis/engine/prelude.lua',
  ])('holds %s once, though several files include it', (file) => {
    expect(lua.split(withoutComments(file)).length - 1).toBe(1);
  });

  it('finds every built-in algorithm and operation in its table', () => {
    const table = /^local algorithms = \{\n([^}]*)\n\}$/m.exec(lua)?.[1] ?? '';
    const entries = table
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    for (const algorithm of BUILT_IN_ALGORITHMS) {
      const index = Number(BUILT_IN_ENGINE.indexOf(algorithm));
      expect(entries[index - 1]).toBe(algorithm.luaName ?? algorithm.commandName);
    }
    expect(entries.slice(0, 6)).toEqual([
      'limiterRateLimitWithBlock',
      'limiterRateLimitPeek',
      'reset_key',
      'block_string_block_key',
      'limiterRateLimitRefundWithBlock',
      'limiterRateLimitChargeWithBlock',
    ]);
  });

  it('runs as a script where Redis has no Functions: the same text, without its name and registrations', () => {
    const script = BUILT_IN_ENGINE.lua;
    const body = lua.slice(lua.indexOf('\n') + 1, lua.indexOf('redis.register_function'));
    expect(script.startsWith(body)).toBe(true);
    expect(script).not.toContain('register_function');
    expect(BUILT_IN_ENGINE.forCrossSlot().lua).toBe(`#!lua flags=allow-cross-slot-keys\n${script}`);
  });
});
