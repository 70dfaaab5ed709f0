import { didYouMean } from '../../src/did-you-mean';
import { compileLimit } from '../../src/compile/compiled-limit';
import { validateModuleOptions } from '../../src/rate-limiter.options-validation';
import { RateLimiterModuleOptions } from '../../src';

const MODULE_OPTIONS =
  'redis, store, keyPrefix, cache, onStoreError, storeTimeout, headers, resolveUser, resolveIp, global, onDecision, ipv6Subnet, skip, shadow';

describe('did you mean', () => {
  it.each([
    ['prefix', 'keyPrefix'],
    ['keyprefix', 'keyPrefix'],
    ['KeyPrefix', 'keyPrefix'],
    ['timeout', 'storeTimeout'],
    ['storeTimout', 'storeTimeout'],
    ['onStoreErrors', 'onStoreError'],
    ['header', 'headers'],
    ['globl', 'global'],
  ])('%s -> %s among the module options', (typed, near) => {
    expect(didYouMean(typed, MODULE_OPTIONS.split(', '))).toBe(near);
  });

  it.each([['limt'], ['limits'], ['lmit']])('%s -> limit among a decorator options', (typed) => {
    expect(didYouMean(typed, ['name', 'key', 'prefix', 'limit', 'period', 'block'])).toBe('limit');
  });

  it('counts two letters swapped as one edit', () => {
    expect(didYouMean('shrot', ['short', 'long'])).toBe('short');
    expect(didYouMean('bdy', ['params', 'query', 'body', 'headers'])).toBe('body');
  });

  it('suggests nothing for a name far from every option', () => {
    expect(didYouMean('ttl', MODULE_OPTIONS.split(', '))).toBeUndefined();
    expect(didYouMean('throttlers', MODULE_OPTIONS.split(', '))).toBeUndefined();
  });
});

describe('unknown options are reported all at once', () => {
  const validate = (options: object) => () =>
    validateModuleOptions(options as RateLimiterModuleOptions);

  it('on the module, each with what it is closest to', () => {
    expect(validate({ prefix: 'api:', ttl: 60, globl: false })).toThrow(
      `RateLimiterModule: unknown options 'prefix' (did you mean 'keyPrefix'?), 'ttl', 'globl' (did you mean 'global'?); the options are ${MODULE_OPTIONS}`,
    );
    expect(validate({ prefix: 'api:' })).toThrow(
      `RateLimiterModule: unknown option 'prefix' (did you mean 'keyPrefix'?); the options are ${MODULE_OPTIONS}`,
    );
  });

  it('on a decorator', () => {
    const compile = (options: Record<string, unknown>) => () =>
      compileLimit({ kind: 'countLimit', decorator: '@CountLimit', options }, 'Api.list', '');
    expect(compile({ limt: 5, perod: 60, ttl: 1 })).toThrow(
      "@CountLimit on Api.list: unknown options 'limt' (did you mean 'limit'?), 'perod' (did you mean 'period'?), 'ttl'; the options are name, key, prefix, limitType, skip, shadow, settle, onStoreError, limit, period, permits, lease, block, count",
    );
  });
});

describe('a value outside a fixed set lists the set', () => {
  it.each([
    [
      { onStoreError: 'deny ' },
      "RateLimiterModule: option 'onStoreError' must be one of 'allow', 'deny', 'fallback', got 'deny ' (did you mean 'deny'?)",
    ],
    [
      { onStoreError: 'open' },
      "RateLimiterModule: option 'onStoreError' must be one of 'allow', 'deny', 'fallback', got 'open'",
    ],
    [
      { headers: 'IETF' },
      "RateLimiterModule: option 'headers' must be one of 'legacy', 'ietf', 'both', false, got 'IETF' (did you mean 'ietf'?)",
    ],
    [
      { headers: true },
      "RateLimiterModule: option 'headers' must be one of 'legacy', 'ietf', 'both', false, got true",
    ],
  ])('%p', (options, message) => {
    expect(() => validateModuleOptions(options as RateLimiterModuleOptions)).toThrow(message);
  });

  it('limitType and count', () => {
    const compile = (options: Record<string, unknown>) => () =>
      compileLimit({ kind: 'countLimit', decorator: '@CountLimit', options }, 'Api.list', '');
    expect(compile({ limitType: 'user' })).toThrow(
      "@CountLimit on Api.list: option 'limitType' must be one of 'IP', 'USER', 'METHOD', 'CUSTOM', got 'user' (did you mean 'USER'?)",
    );
    expect(compile({ count: 'failure' })).toThrow(
      "@CountLimit on Api.list: option 'count' must be one of 'all', 'failures', 'successes', got 'failure' (did you mean 'failures'?)",
    );
  });

  it("takes 'USER' as LimitType.USER", () => {
    const limit = compileLimit(
      { kind: 'countLimit', decorator: '@CountLimit', options: { limitType: 'USER' } },
      'Api.list',
      '',
    ) as { key(facts: object): string };
    expect(limit.key({ ip: '1.2.3.4', keyIp: '1.2.3.4', userId: 'alice', keyContext: {} })).toBe(
      'countLimit:~Api.list:alice',
    );
  });
});
