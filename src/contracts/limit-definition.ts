import type { Resolvable, SkipPredicate } from './limit-context';
import { LimitType } from './limit-type.enum';
import type { StoreErrorPolicy } from './store-error-policy';

/** Options every limit decorator shares: where its key comes from, and when it applies. */
export interface KeyOptions {
  /**
   * The limit's name: what events, metrics and IETF policy items show. Default: the
   * decorator's prefix without its colon (`countLimit`), with `#2`, `#3`… for repeats on one
   * handler. Unique per handler.
   */
  name?: string;
  /** A key template such as `'sms:#{body.phone}'`. Given without `limitType`, it means CUSTOM. */
  key?: string;
  /** Prepended to the key part; each decorator has its own default. */
  prefix?: string;
  /**
   * How the key is built; default METHOD, or CUSTOM when `key` is given. The enum or its
   * value as a string: `LimitType.USER` or `'USER'`.
   */
  limitType?: LimitType | `${LimitType}`;
  /** When it returns true, the limit is not evaluated for the request (no store call). */
  skip?: SkipPredicate;
  /** Evaluate and count, but never refuse or delay; report `shadow-denied` instead. */
  shadow?: boolean;
  /**
   * When the store cannot decide this limit (down, or slower than `storeTimeout`): 'allow'
   * lets the request through, 'deny' answers 503, 'fallback' limits it in memory. Default
   * the module's `onStoreError`. A login's brute-force limit may deny while the rest allow.
   */
  onStoreError?: StoreErrorPolicy;
}

/** What one request costs, on every limit decorator (docs/design.md#state-and-cost). */
export interface CostOptions {
  /**
   * Permits each request takes: an integer >= 0, default 1 (LLM tokens, an SMS batch's
   * numbers, a query's complexity), or a function of the request that returns it. 0 checks
   * the limit without taking anything. A cost above the limit is refused with 429 and no
   * `Retry-After` (it can never pass); a static one fails start-up. A function that returns
   * anything but an integer >= 0 answers 500 and logs the limit.
   *
   * @example
   * ```ts
   * @CountLimit({ limit: 100, period: 60, permits: (ctx) => ctx.request.body.numbers.length })
   * ```
   */
  permits?: Resolvable<number>;
}

/**
 * What a limit decorator records: read and compiled once at start-up. `Kind` is the type of
 * an algorithm's kind (algorithms/limit-kind.ts), which this floor does not import.
 */
export interface LimitDefinition<Kind = unknown> {
  /** The algorithm's name (`countLimit`), as `src/algorithms/registry.ts` lists it. */
  kind: string;
  /**
   * The decorator's algorithm itself, then the variants its options may select: compiling
   * it looks nothing up by name. Absent on a module default, which names its algorithm.
   */
  kinds?: readonly Kind[];
  /** The decorator's name for messages, e.g. `@RateLimit`. */
  decorator: string;
  options: KeyOptions & Record<string, unknown>;
}
