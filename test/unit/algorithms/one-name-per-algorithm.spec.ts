import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '../../../src';
import { LIMIT_KINDS } from '../../../src/algorithms/registry';
import { RateLimiterFactory } from '../../../src/limiter/rate-limiter.factory';

/**
 * Each algorithm has one name, its decorator's in camel case (`countLimit`): the kind a
 * decorator records and a module default names, its folder, its Lua functions, its factory
 * method and class (plus `er`). Only its stable name, written into Redis keys and events,
 * keeps what it was first called.
 */
const ALGORITHMS = join(__dirname, '..', '..', '..', 'src', 'algorithms');
const DECORATORS = join(ALGORITHMS, '..', 'decorators');

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
/** The name without its `Limit`: what the prefixes of DESIGN §1 start with (`slidingWindow:`). */
const stem = (name: string) => name.replace(/Limit$/, '');

describe('one name per algorithm', () => {
  it('lists the six algorithms under the names of their decorators', () => {
    expect(LIMIT_KINDS.map((kind) => [kind.name, kind.decorator])).toEqual([
      ['rateLimit', '@RateLimit'],
      ['countLimit', '@CountLimit'],
      ['slidingWindowLimit', '@SlidingWindowLimit'],
      ['concurrencyLimit', '@ConcurrencyLimit'],
      ['leakyBucketLimit', '@LeakyBucketLimit'],
      ['approximateSlidingWindowLimit', '@SlidingWindowLimit'],
    ]);
  });

  it.each(LIMIT_KINDS.map((kind) => [kind.name, kind]))(
    '%s: folder, definition, decorator, prefix, factory method, class and Lua share it',
    (name, kind) => {
      const family = kind.variant?.of ?? kind.name;
      const folder = join(ALGORITHMS, kebab(name));
      expect(existsSync(join(folder, `${kebab(name)}.definition.ts`))).toBe(true);
      expect(existsSync(join(folder, `${kebab(name)}.lua`))).toBe(true);
      expect(existsSync(join(DECORATORS, `${kebab(family)}.decorator.ts`))).toBe(true);
      expect(kind.decorator).toBe(`@${pascal(family)}`);
      expect(typeof (api as Record<string, unknown>)[pascal(family)]).toBe('function');
      expect(kind.defaultPrefix.startsWith(stem(family))).toBe(true);
      expect(typeof (RateLimiterFactory.prototype as any)[`${family}er`]).toBe('function');
      expect(typeof (api as Record<string, unknown>)[`${pascal(name)}er`]).toBe('function');
      const { peek, reset, block, refund, charge } = kind.ops ?? {};
      const operations = [kind.algorithm, peek, reset, block, refund, charge].filter(Boolean);
      const commands = operations.map((algorithm) => algorithm!.commandName);
      for (const command of commands)
        expect(command).toMatch(new RegExp(`^limiter${pascal(name)}`));
    },
  );

  it('keeps the stable names that Redis keys and factory events were first written with', () => {
    expect(LIMIT_KINDS.map((kind) => kind.stableName)).toEqual([
      'tokenBucket',
      'fixedWindow',
      'slidingWindow',
      'concurrency',
      'leakyBucket',
      'approximateSlidingWindow',
    ]);
  });

  it('keeps the public names the algorithms had, as the new ones themselves', () => {
    const exported = api as Record<string, unknown>;
    expect(exported.TokenBucketLimiter).toBe(exported.RateLimiter);
  });
});
