import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_ALGORITHMS } from '../../../algorithms/built-in-algorithms';
import { LimiterAlgorithm } from '../../../algorithms/limiter-algorithm';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

const read = (file: string): string => readFileSync(join(__dirname, file), 'utf8');

/**
 * The engine's Redis Functions library as composed from the .lua files and the registry's
 * definitions (compose-library.ts, `npm run engine:library`): the generated file a unit test
 * holds equal to what the composer writes, so the Lua read in review is the Lua that runs.
 */
export const ENGINE_LIBRARY = read('library.generated.lua');

/** The lines that are only a comment, and blank lines, dropped, as the library has them. */
function withoutCommentLines(lua: string): string {
  return lua
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
    .join('\n');
}

const EVAL_ENTRY = withoutCommentLines(read('eval.lua'));
const CUSTOM_ENTRY = read('custom.lua');

/** How a script (EVAL) declares that it may touch keys of several slots of its node (Redis >= 7). */
const CROSS_SLOT_FLAGS = '#!lua flags=allow-cross-slot-keys\n';

/**
 * The library's name (its first line), its text without that line and its registrations, and
 * the size of its table: the built-in algorithms, which the entries files add in the same
 * order (state-ops/entries.lua).
 */
function libraryParts(library: string): { name: string; body: string; entries: number } {
  const lines = library.split('\n');
  const name = /^#!lua name=(\w+)$/.exec(lines[0])?.[1];
  const registrations = lines.findIndex((line) => line.startsWith('redis.register_function'));
  const body = lines.slice(1, registrations).join('\n');
  const entries = BUILT_IN_ALGORITHMS.length;
  if (!name || registrations < 0 || !body.includes('local algorithms = {}')) {
    throw new Error('library.generated.lua is not the engine library: run npm run engine:library');
  }
  return { name, body, entries };
}

const LIBRARY = libraryParts(ENGINE_LIBRARY);

/**
 * The engine for a list of algorithms, in the two forms Redis can run it: the library
 * (FUNCTION LOAD once, FCALL per batch), and the same Lua as one script (EVALSHA) where
 * Redis has no Functions. An entry names its algorithm by its index in the library's table,
 * which lists the built-in algorithms in the order of BUILT_IN_ALGORITHMS. An algorithm the app defines itself (not built in) is appended to
 * the table in the script: an engine with one has no library and always runs as a script.
 */
export class EngineScript {
  /** FUNCTION LOAD's text; undefined once an algorithm of the app's own is included. */
  readonly library?: string;
  /** The library's versioned name (its hash): two releases of the app never share it. */
  readonly libraryName: string;
  /** FCALL's function: the engine on declared keys, or with `crossSlot` the one across slots. */
  readonly functionName: string;
  /** The script EVALSHA runs. */
  readonly lua: string;
  /** The ioredis command it is defined as: named by its hash, so two stores share it. */
  readonly commandName: string;
  private readonly indexes = new Map<AnyAlgorithm, string>();

  /**
   * `crossSlot`: the engine declared with Redis 7's `allow-cross-slot-keys` flag, so one call
   * may touch keys of several hash slots that one Cluster node serves.
   */
  constructor(
    readonly algorithms: readonly AnyAlgorithm[],
    readonly crossSlot = false,
  ) {
    let custom = '';
    let added = 0;
    for (const algorithm of algorithms) {
      const at = BUILT_IN_ALGORITHMS.indexOf(algorithm);
      if (at >= 0) {
        this.indexes.set(algorithm, String(at + 1));
        continue;
      }
      if (algorithm.lua === undefined) throw new Error(`${algorithm.commandName} has no Lua`);
      for (const { name, source } of algorithm.luaIncludes ?? []) {
        const defined = new RegExp(`^local (function )?${name}\\b`, 'm');
        if (!defined.test(LIBRARY.body + custom)) custom += `${source.trimEnd()}\n`;
      }
      const body = algorithm.lua.trim();
      custom += `${withoutCommentLines(CUSTOM_ENTRY.replace(/^--- @body$/m, () => body))}\n`;
      this.indexes.set(algorithm, String(LIBRARY.entries + ++added));
    }
    const script = `${LIBRARY.body}\n${custom}${EVAL_ENTRY}\n`;
    this.lua = crossSlot ? CROSS_SLOT_FLAGS + script : script;
    this.commandName = `limiterEngine_${createHash('sha1').update(this.lua).digest('hex').slice(0, 12)}`;
    if (added === 0) this.library = ENGINE_LIBRARY;
    this.libraryName = LIBRARY.name;
    this.functionName = crossSlot ? `${LIBRARY.name}_across_slots` : LIBRARY.name;
  }

  /** The entries' algorithmIndex, or undefined for an algorithm this engine lacks. */
  indexOf(algorithm: AnyAlgorithm): string | undefined {
    return this.indexes.get(algorithm);
  }

  /** This engine plus an algorithm of the app's own, the indexes of the others unchanged. */
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
