import { Decision } from '../contracts/decision';
import type { DecisionSource } from './decision-source';
import { EngineAlgorithm } from './engine-algorithm';
import { StateOps } from './state-ops/state-ops';
import type { LibraryEntry } from './library-entries';

/** A limit's algorithm with its parameters fixed, as the guard runs it. */
export interface CompiledAlgorithm {
  algorithm: EngineAlgorithm<unknown, unknown, unknown>;
  params: unknown;
  /**
   * The request argument of one decision (a new id where the algorithm needs one), costing
   * `permits` when given (a decorator's `permits` function, resolved for the request), else
   * the decorator's static `permits` (default 1).
   */
  newRequest(permits?: number): unknown;
  /** The policy window in seconds, for the IETF `RateLimit-Policy` header. */
  windowSeconds?: number;
  /** Whether the slot is held until the work ends (concurrency). */
  holdsSlot?: boolean;
  /** The request argument that gives back the slot `acquire` took. */
  releaseRequest?(acquire: unknown): unknown;
  /**
   * How long a slot is held unless renewed, in ms: a request that holds it longer (a
   * WebSocket connection, as long as its socket) sends its acquire again before then.
   */
  slotLeaseMs?: number;
  /** Peek, reset, block and refund on the limit's key (absent for concurrency). */
  ops?: StateOps<unknown, unknown, unknown>;
  /** Set when only some outcomes count: the others refund when the request finishes. */
  count?: 'failures' | 'successes';
  /**
   * The `Retry-After` of a denial, when the decision's own says little: a concurrency slot
   * frees whenever any request ends, long before its lease would.
   */
  retryAfterMs?(decision: Decision): number;
  /**
   * Set when the params were made for one request (options resolved from it): the object,
   * one per algorithm, passed on as `DecisionCall.partition`.
   */
  partition?: object;
}

/**
 * Everything the guard and the factory need to know of one algorithm, declared once in
 * the algorithm's folder and listed in `registry.ts`. Decorator options arrive untyped
 * (plain JavaScript callers included): `compile` and `limiterParams` validate every field
 * through the algorithm's `*Params` function, naming `where` in their errors.
 */
export interface LimitKind<Options = any, Limiter = unknown> {
  /**
   * The algorithm's one name (`countLimit`): what a decorator records (`LimitDefinition.kind`),
   * what long keys' hashed parts are tagged with, a factory limiter's `name` in events.
   */
  readonly name: string;
  /** The decorator's name, for messages. */
  readonly decorator: string;
  /** The key prefix of the decorator and of the factory method. */
  readonly defaultPrefix: string;
  /** Options besides the key options: unknown ones fail start-up. */
  readonly optionNames: readonly string[];
  /**
   * What its factory method takes: the key options, then the limit's own. A decorator's
   * options that a programmatic limiter takes per call (`permits`) or not at all (`block`,
   * `count`) are not among them.
   */
  readonly factoryOptionNames: readonly string[];
  /**
   * Its options that are times in seconds (`period`, `lease`, `block`…): a bare number of
   * 1,000 or more there is more often milliseconds than seconds (handler-definitions.ts).
   */
  readonly durationOptions: readonly string[];
  /** Options an override may not change: they say what the limit is, not its size. */
  readonly fixedOptions?: readonly string[];
  /** The script and memory twin this kind runs. */
  readonly algorithm: EngineAlgorithm<any, any, any>;
  /** The operations on its keys besides acquiring (state-ops/): their scripts are built in too. */
  readonly ops?: StateOps<any, any, any, any>;
  /** Its entries in the engine library's table: the acquire, its operations, its coalesced form. */
  readonly library: readonly LibraryEntry[];
  /**
   * Set on a kind that another kind's decorator selects by a truthy option, e.g.
   * `{ of: 'slidingWindowLimit', when: 'approximate' }`.
   */
  readonly variant?: { of: string; when: string };
  compile(options: Record<string, unknown>, where: string): CompiledAlgorithm;
  /**
   * A factory limiter's parameters from its options, validated: apart from
   * {@link createLimiter}, so that the factory validates a configuration once and shares its
   * parameters among the limiters of every key.
   */
  limiterParams(options: Options, where: string): object;
  /** The factory's limiter on `key`, with parameters {@link limiterParams} made. */
  createLimiter(source: DecisionSource, key: string, params: object): Limiter;
}

/** Lets a typed algorithm stand where any algorithm may. */
export const anyAlgorithm = <P, R, S>(algorithm: EngineAlgorithm<P, R, S>) =>
  algorithm as unknown as EngineAlgorithm<unknown, unknown, unknown>;

/** The factory's method of a kind: its name, or the name of the kind it varies, and `er`. */
export function factoryMethodOf(kind: Pick<LimitKind, 'name' | 'variant'>): string {
  return `${kind.variant?.of ?? kind.name}er`;
}
