import { LimiterConfigError } from './errors/limiter-config.error';
import { limiterMessages } from './rate-limiter.messages';
import { RateLimiterModuleOptions } from './rate-limiter.options';

const WHERE = 'RateLimiterModule';
const POLICIES = ['allow', 'deny', 'fallback'];
const HEADER_MODES = ['legacy', 'ietf', 'both', false];
const FUNCTION_OPTIONS = ['resolveUser', 'resolveIp', 'onDecision'] as const;

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
  const { ipv6Subnet } = options;
  if (
    ipv6Subnet !== undefined &&
    ipv6Subnet !== false &&
    !(Number.isInteger(ipv6Subnet) && ipv6Subnet >= 1 && ipv6Subnet <= 128)
  ) {
    fail('ipv6Subnet', ipv6Subnet, 'an integer from 1 to 128, or false');
  }
  for (const name of FUNCTION_OPTIONS) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'function') fail(name, value, 'a function');
  }
}
