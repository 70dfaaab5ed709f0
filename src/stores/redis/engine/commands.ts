import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { LimiterAlgorithm } from '../../../algorithms/limiter-algorithm';
import { BUILT_IN_ENGINE, EngineScript } from './script';
import { EngineFunctions } from './functions';

type EngineCommand = (...args: string[]) => Promise<unknown>;
type Commands = Record<string, EngineCommand | undefined>;
type ExecResult = [Error | null, unknown][] | null;

/** A pipeline of engine calls sent: its results, and the engine it ran (as FCALL or not). */
interface PipelineSent {
  engine: EngineScript;
  fcall: boolean;
  results: Promise<ExecResult>;
}

/** The SHA1 of every engine script any store defined: EVALSHA's first argument. */
const ENGINE_SHAS = new Set<string>();

/** Whether a command is an engine call (unanswered-calls.ts): FCALL, EVALSHA or EVAL of it. */
export function isEngineCall(name: string, args: readonly unknown[]): boolean {
  const command = name.toLowerCase();
  const first = String(args[0] ?? '');
  if (command === 'fcall') return first.startsWith(BUILT_IN_ENGINE.libraryName);
  if (command === 'evalsha') return ENGINE_SHAS.has(first);
  return command === 'eval' && ENGINE_SHAS.has(sha1(first));
}

/**
 * The engine as commands of the ioredis client: an FCALL of the engine library where Redis
 * has Functions (functions.ts), else an EVALSHA, ioredis `defineCommand` giving the
 * reload on NOSCRIPT. Either is routed by its first key. A custom algorithm grows the engine
 * on its first use, and the grown engine is defined at once.
 */
export class EngineCommands {
  private current: EngineScript = BUILT_IN_ENGINE;
  /** The engine for one call per Cluster node (keys of several slots). */
  private crossSlotEngine?: EngineScript;
  readonly functions: EngineFunctions;

  constructor(private readonly client: Redis | Cluster) {
    this.define(this.current);
    this.functions = new EngineFunctions(client);
    if (client.isCluster) {
      this.crossSlotEngine = this.current.forCrossSlot();
      this.define(this.crossSlotEngine);
    }
  }

  /** The engine every call runs, with the custom algorithms seen so far. */
  get engine(): EngineScript {
    return this.current;
  }

  /** The engine of a call whose keys span slots; none on a standalone or Sentinel client. */
  get crossSlot(): EngineScript | undefined {
    return this.crossSlotEngine;
  }

  /** The algorithm's index, adding a custom algorithm to the engine on first use. */
  indexOf(algorithm: LimiterAlgorithm<any, any, any>): string {
    let index = this.current.indexOf(algorithm);
    if (index === undefined) {
      this.current = this.current.including(algorithm);
      this.define(this.current);
      if (this.crossSlotEngine) {
        this.crossSlotEngine = this.current.forCrossSlot();
        this.define(this.crossSlotEngine);
      }
      index = this.current.indexOf(algorithm)!;
    }
    return index;
  }

  /** Loads the engine library, unless Functions are known (functions.ts prepare). */
  prepare(): Promise<void> {
    return this.functions.prepare(this.current);
  }

  /** One call of `engine` on `target`: FCALL, or EVALSHA (functions.ts call). */
  call(target: Redis | Cluster, args: string[], engine = this.current): Promise<unknown> {
    const script = () => (target as unknown as Commands)[engine.commandName]!.apply(target, args);
    return this.functions.call(target, engine, args, script);
  }

  /**
   * Each call of `calls` (its args) in one pipeline on `target`, as FCALL where the library is
   * loaded, else as EVALSHA; with the engine it ran, to reload a library found missing.
   */
  pipeline(target: Redis | Cluster, calls: string[][]): PipelineSent {
    const engine = this.current;
    const fcall = this.functions.uses(engine);
    const pipeline = target.pipeline();
    for (const args of calls) {
      if (fcall) pipeline.call('FCALL', engine.functionName, ...args);
      else (pipeline as unknown as Commands)[engine.commandName]!(...args);
    }
    return { engine, fcall, results: pipeline.exec() as Promise<ExecResult> };
  }

  private define(engine: EngineScript): void {
    ENGINE_SHAS.add(sha1(engine.lua));
    if (typeof (this.client as unknown as Commands)[engine.commandName] !== 'function') {
      this.client.defineCommand(engine.commandName, { lua: engine.lua });
    }
  }
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
