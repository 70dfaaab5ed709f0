import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../../../src';
import { LIMIT_KINDS } from '../../../src/algorithms/registry';
import { RateLimiterFactory } from '../../../src/limiter/rate-limiter.factory';
import { CompiledLimit, compileLimit } from '../../../src/compile/compiled-limit';

/**
 * Each algorithm has one name, its decorator's in camel case (`countLimit`): the kind a
 * decorator records and a module default names, its folder and files, its definition, its
 * Lua functions, its factory method and class (plus `er`), the tag of a long key's hashed part
 * in Redis and a factory limiter's name in events.
 */
const ALGORITHMS = join(__dirname, '..', '..', '..', 'src', 'algorithms');
const DECORATORS = join(ALGORITHMS, '..', 'decorators');
const exported = api as Record<string, unknown>;

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
/** The name without its `Limit`: what the public prefixes start with (`slidingWindow:`). */
const stem = (name: string) => name.replace(/Limit$/, '');
/** The kind a variant varies (`slidingWindowLimit` for the approximate window), else itself. */
const familyOf = (kind: (typeof LIMIT_KINDS)[number]) => kind.variant?.of ?? kind.name;

const BUILT_IN = LIMIT_KINDS.slice(0, 6);
/** The six names, written out: what Redis keys and events carry, pinned. */
const ONE_NAMES = [
  'rateLimit',
  'countLimit',
  'slidingWindowLimit',
  'concurrencyLimit',
  'leakyBucketLimit',
  'approximateSlidingWindowLimit',
];

describe('one name per algorithm', () => {
  it('lists the six built-in algorithms under the names of their decorators', () => {
    expect(BUILT_IN.map((kind) => [kind.name, kind.decorator])).toEqual([
      ['rateLimit', '@RateLimit'],
      ['countLimit', '@CountLimit'],
      ['slidingWindowLimit', '@SlidingWindowLimit'],
      ['concurrencyLimit', '@ConcurrencyLimit'],
      ['leakyBucketLimit', '@LeakyBucketLimit'],
      ['approximateSlidingWindowLimit', '@SlidingWindowLimit'],
    ]);
  });

  it.each(LIMIT_KINDS.map((kind) => [kind.name, kind]))(
    '%s: folder, files, definition, decorator, prefix, class and Lua share it',
    (name, kind) => {
      const folder = join(ALGORITHMS, kebab(name));
      const definitionFile = join(folder, `${kebab(name)}.definition.ts`);
      expect(existsSync(join(folder, `${kebab(name)}.lua`))).toBe(true);
      expect(existsSync(join(folder, `${kebab(name)}.model.ts`))).toBe(true);
      expect(existsSync(definitionFile)).toBe(true);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const definition = require(definitionFile) as Record<string, unknown>;
      expect(typeof definition[`${pascal(name)}er`]).toBe('function');
      expect(definition[`${name}Kind`]).toBe(kind);
      expect(kind.decorator).toBe(`@${pascal(familyOf(kind))}`);
      expect(kind.defaultPrefix.startsWith(stem(familyOf(kind)))).toBe(true);
      const { peek, reset, block, refund, charge } = kind.ops ?? {};
      const operations = [kind.algorithm, peek, reset, block, refund, charge].filter(Boolean);
      const commands = operations.map((algorithm) => algorithm!.commandName);
      for (const command of commands)
        expect(command).toMatch(new RegExp(`^limiter${pascal(name)}`));
    },
  );

  it.each(BUILT_IN.map((kind) => [kind.name, kind]))(
    '%s: the public decorator, factory method and class carry it',
    (name, kind) => {
      const family = familyOf(kind);
      expect(existsSync(join(DECORATORS, `${kebab(family)}.decorator.ts`))).toBe(true);
      expect(typeof exported[pascal(family)]).toBe('function');
      expect(typeof (RateLimiterFactory.prototype as any)[`${family}er`]).toBe('function');
      expect(typeof exported[`${pascal(name)}er`]).toBe('function');
    },
  );

  it('keeps the public default prefixes, which the rename does not touch', () => {
    expect(BUILT_IN.map((kind) => kind.defaultPrefix)).toEqual([
      'rateLimit:',
      'countLimit:',
      'slidingWindow:',
      'concurrency:',
      'leakyBucket:',
      'slidingWindowApprox:',
    ]);
  });

  it("names a decorator's limit with prefix '' by its algorithm's one name", () => {
    const unprefixed = (kind: string, options: Record<string, unknown>) =>
      (
        compileLimit(
          { kind, decorator: '@X', options: { ...options, prefix: '' } },
          'C.m',
          '',
        ) as CompiledLimit
      ).name;
    expect([
      unprefixed('rateLimit', {}),
      unprefixed('countLimit', {}),
      unprefixed('slidingWindowLimit', { limit: 1, window: 1 }),
      unprefixed('concurrencyLimit', { max: 1 }),
      unprefixed('leakyBucketLimit', { capacity: 1, rate: 1 }),
      unprefixed('slidingWindowLimit', { limit: 1, window: 1, approximate: true }),
    ]).toEqual(ONE_NAMES);
  });

  it("tags a factory limiter's long key with its algorithm's one name", () => {
    const factory = new RateLimiterFactory(new api.MemoryStore());
    const key = 'k'.repeat(300);
    const digest = createHash('sha1').update(key).digest('hex');
    expect([
      factory.rateLimiter({ key }).key,
      factory.countLimiter({ key }).key,
      factory.slidingWindowLimiter({ key, limit: 1, window: 1 }).key,
      factory.concurrencyLimiter({ key, max: 1 }).key,
      factory.leakyBucketLimiter({ key, capacity: 1, rate: 1 }).key,
      factory.slidingWindowLimiter({ key, limit: 1, window: 1, approximate: true }).key,
    ]).toEqual(ONE_NAMES.map((name, i) => `${BUILT_IN[i].defaultPrefix}%#${name}:${digest}`));
  });

  it('exports no other name for an algorithm (no release carried the names they had before)', () => {
    for (const name of [
      'TokenBucketLimiter',
      'TokenBucketOptions',
      'FixedWindowOptions',
      'SlidingWindowOptions',
      'LeakyBucketOptions',
      'ConcurrencyOptions',
    ]) {
      expect([name, exported[name]]).toEqual([name, undefined]);
    }
  });
});
