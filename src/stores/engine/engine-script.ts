import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_ALGORITHMS } from '../../algorithms/built-in-algorithms';
import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';
import { LuaDefinition, luaDefinitionsOf } from '../../algorithms/lua-source';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

const prelude = readFileSync(join(__dirname, 'prelude.lua'), 'utf8');
const loop = readFileSync(join(__dirname, 'engine.lua'), 'utf8');

/** The entries' keys are the declared KEYS, and ARGV follows. */
const DECLARED_KEYS = 'local keys, args = KEYS, ARGV\n';

/**
 * Declared keys must share a slot even with `allow-cross-slot-keys`, which only lets a script
 * touch keys of other slots of its node: a call declares its first key, and passes the count
 * of keys and every key at the head of ARGV.
 */
const CROSS_SLOT_KEYS = `local keys, args = {}, {}
for i = 1, tonumber(ARGV[1]) do keys[i] = ARGV[1 + i] end
for i = #keys + 2, #ARGV do args[#args + 1] = ARGV[i] end
`;

/**
 * The .lua files keep their explanations and spacing; the script sent to Redis (and
 * lib/engine.lua) drops the lines that are only a comment or blank, so it stays short enough
 * to read as one piece. Comments after code on a line stay: a `--` inside a string cannot be
 * told apart without parsing.
 */
function withoutCommentLines(lua: string): string {
  return lua
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
    .join('\n');
}

/**
 * Entries to a line of the table: the six operations of most algorithms (acquire, peek,
 * reset, block, refund, charge); one with fewer (concurrency) shifts the rows after it.
 */
const ENTRIES_PER_ROW = 6;

/** The table's entries, `perRow` to a line. */
function rowsOf(entries: readonly string[], perRow: number): string {
  const rows: string[] = [];
  for (let i = 0; i < entries.length; i += perRow) {
    rows.push(`  ${entries.slice(i, i + perRow).join(', ')},`);
  }
  return rows.join('\n');
}

/**
 * One Lua script that can run a decision of any of its algorithms: the prelude, then each
 * Lua function once (an algorithm's, a shared helper such as string-block.lua: what their
 * `luaIncludes` name), then `algorithms[i]` for each algorithm, then the loop of engine.lua
 * over a batch of entries. An entry names its algorithm by index, so adding an
 * algorithm appends to the list and keeps every other index.
 */
export class EngineScript {
  readonly lua: string;
  /** The ioredis command it is defined as: named by its hash, so two stores share it. */
  readonly commandName: string;
  private readonly indexes = new Map<AnyAlgorithm, string>();

  /**
   * `crossSlot`: the same script declared with Redis 7's `allow-cross-slot-keys` flag, so
   * one call may touch keys of several hash slots that one Cluster node serves.
   */
  constructor(
    readonly algorithms: readonly AnyAlgorithm[],
    readonly crossSlot = false,
  ) {
    const defined = new Map<string, string>();
    let functions = '';
    const define = ({ name, source }: LuaDefinition) => {
      const known = defined.get(name);
      if (known === undefined) {
        defined.set(name, source);
        functions += `${source.trimEnd()}\n`;
      } else if (known !== source) {
        throw new Error(`Two different Lua definitions named ${name} in one engine script`);
      }
    };
    for (const algorithm of algorithms) {
      if (algorithm.luaIncludes) luaDefinitionsOf(algorithm).forEach(define);
    }
    const entries = algorithms.map((algorithm, i) => {
      this.indexes.set(algorithm, String(i + 1));
      const own = luaDefinitionsOf(algorithm).pop()!;
      return defined.get(own.name) === own.source
        ? own.name
        : // A body no other calls (a custom algorithm): the loop calls it alone.
          `function(key, now, argv)\n${algorithm.lua}\nend`;
    });
    functions += `local algorithms = {\n${rowsOf(entries, ENTRIES_PER_ROW)}\n}\n`;
    const script = withoutCommentLines(
      `${prelude}\n${functions}${crossSlot ? CROSS_SLOT_KEYS : DECLARED_KEYS}${loop}`,
    );
    this.lua = crossSlot ? `#!lua flags=allow-cross-slot-keys\n${script}` : script;
    const sha = createHash('sha1').update(this.lua).digest('hex');
    this.commandName = `limiterEngine_${sha.slice(0, 12)}`;
  }

  /** The entry's algorithm field, or undefined for an algorithm this script lacks. */
  indexOf(algorithm: AnyAlgorithm): string | undefined {
    return this.indexes.get(algorithm);
  }

  /** This script plus a custom algorithm, the indexes of the others unchanged. */
  including(algorithm: AnyAlgorithm): EngineScript {
    return new EngineScript([...this.algorithms, algorithm], this.crossSlot);
  }

  /** The same algorithms, declared for keys of several slots of one node (Redis >= 7). */
  forCrossSlot(): EngineScript {
    return new EngineScript(this.algorithms, true);
  }
}

/** The engine of every built-in algorithm: what each RedisStore starts with. */
export const BUILT_IN_ENGINE = new EngineScript(BUILT_IN_ALGORITHMS);
