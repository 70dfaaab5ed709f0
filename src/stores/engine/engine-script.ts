import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN_ALGORITHMS } from '../../algorithms/built-in-algorithms';
import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

const prelude = readFileSync(join(__dirname, 'prelude.lua'), 'utf8');
const loop = readFileSync(join(__dirname, 'engine.lua'), 'utf8');

/**
 * One Lua script that can run a decision of any of its algorithms: the prelude, each
 * algorithm's Lua as `algorithms[i] = function(key, now, argv) … end`, then the loop of
 * engine.lua over a batch of entries. An entry names its algorithm by index, so adding an
 * algorithm appends to the list and keeps every other index.
 */
export class EngineScript {
  readonly lua: string;
  /** The ioredis command it is defined as: named by its hash, so two stores share it. */
  readonly commandName: string;
  private readonly indexes = new Map<AnyAlgorithm, string>();

  constructor(readonly algorithms: readonly AnyAlgorithm[]) {
    let functions = 'local algorithms = {}\n';
    algorithms.forEach((algorithm, i) => {
      this.indexes.set(algorithm, String(i + 1));
      functions += `algorithms[${i + 1}] = function(key, now, argv)\n${algorithm.lua}\nend\n`;
    });
    this.lua = `${prelude}\n${functions}${loop}`;
    const sha = createHash('sha1').update(this.lua).digest('hex');
    this.commandName = `limiterEngine_${sha.slice(0, 12)}`;
  }

  /** The entry's algorithm field, or undefined for an algorithm this script lacks. */
  indexOf(algorithm: AnyAlgorithm): string | undefined {
    return this.indexes.get(algorithm);
  }

  /** This script plus a custom algorithm, the indexes of the others unchanged. */
  including(algorithm: AnyAlgorithm): EngineScript {
    return new EngineScript([...this.algorithms, algorithm]);
  }
}

/** The engine of every built-in algorithm: what each RedisStore starts with. */
export const BUILT_IN_ENGINE = new EngineScript(BUILT_IN_ALGORITHMS);
