import { LimiterConfigError } from './errors/limiter-config.error';
import { limiterMessages } from './rate-limiter.messages';
import { RateLimiterModuleOptions } from './rate-limiter.options';

const WHERE = 'RateLimiterModule';
const POLICIES = ['allow', 'deny', 'fallback'];
const HEADER_MODES = ['legacy', 'ietf', 'both', false];
const FUNCTION_OPTIONS = ['resolveUser', 'resolveIp', 'onDecision', 'skip'] as const;

/**
 * Checks the module's own options when the module starts, so a typo fails start-up instead
 * of surfacing as a quiet default (`onStoreError: 'deny '` would otherwise fail open).
 */
export function validateModuleOptions(options: RateLimiterModuleOptions): void {
  const fail = (option: string, value: unknown, expected: string): never => {
    throw new LimiterConfigError(limiterMessages.invalidOption(WHERE, option, value, expected));
  };
  const { onStoreError, storeTimeout, headers, keyPrefix, global } = options;
  if (onStoreError !== undefined && !POLICIES.includes(onStoreError)) {
    fail('onStoreError', onStoreError, `one of 'allow', 'deny', 'fallback'`);
  }
  if (
    storeTimeout !== undefined &&
    !(typeof storeTimeout === 'number' && Number.isFinite(storeTimeout) && storeTimeout > 0)
  ) {
    fail('storeTimeout', storeTimeout, 'a number of milliseconds > 0');
  }
  if (headers !== undefined && !HEADER_MODES.includes(headers)) {
    fail('headers', headers, `one of 'legacy', 'ietf', 'both', false`);
  }
  if (keyPrefix !== undefined && typeof keyPrefix !== 'string') {
    fail('keyPrefix', keyPrefix, 'a string');
  }
  if (global !== undefined && typeof global !== 'boolean') fail('global', global, 'a boolean');
  const { shadow } = options;
  if (shadow !== undefined && typeof shadow !== 'boolean') fail('shadow', shadow, 'a boolean');
  for (const name of FUNCTION_OPTIONS) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'function') fail(name, value, 'a function');
  }
}
