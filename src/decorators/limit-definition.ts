import { LimitType } from '../keys/limit-type.enum';

/** Options every limit decorator shares: where its key comes from. */
export interface KeyOptions {
  /** A key template such as `'sms:#{body.phone}'`. Given without `limitType`, it means CUSTOM. */
  key?: string;
  /** Prepended to the key part; each decorator has its own default. */
  prefix?: string;
  /** How the key is built; default METHOD, or CUSTOM when `key` is given. */
  limitType?: LimitType;
}

/** What a limit decorator records: read and compiled once at start-up. */
export interface LimitDefinition {
  /** The algorithm's kind name, as `src/algorithms/registry.ts` lists it. */
  kind: string;
  /** The decorator's name for messages, e.g. `@RateLimit`. */
  decorator: string;
  options: KeyOptions & Record<string, unknown>;
}
