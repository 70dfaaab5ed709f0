import { MAX_TIMER_MS } from './stores/sleep';
import { NetworkPolicy } from './keys/network-policy';
import { defaultDefinitions } from './compile/default-limits';
import { LimiterConfigError } from './errors/limiter-config.error';
import { compileLimit } from './compile/compiled-limit';
import { limiterMessages } from './rate-limiter.messages';
import { RateLimiterModuleOptions } from './rate-limiter.options';
import { REDIS_CALL_MODES } from './stores/redis/engine/call-mode';
import { redisUrlProblem, withoutPassword } from './stores/redis/endpoint/redis-url';
import { overloadSettings } from './overload/overload.options';

const WHERE = 'RateLimiterModule';
const POLICIES = ['allow', 'deny', 'fallback'];
const HEADER_MODES = ['legacy', 'ietf', 'both', false];
const FUNCTION_OPTIONS = ['resolveUser', 'resolveIp', 'onDecision', 'skip'] as const;

/**
 * Every module option, typed so that an option added to the interface and not here fails to
 * compile: an unknown option (`prefix` for `keyPrefix`) fails start-up instead of being ignored.
 */
const MODULE_OPTIONS: { readonly [name in keyof Required<RateLimiterModuleOptions>]: true } = {
  redis: true,
  store: true,
  keyPrefix: true,
  cache: true,
  onStoreError: true,
  storeTimeout: true,
  headers: true,
  resolveUser: true,
  resolveIp: true,
  global: true,
  onDecision: true,
  ipv6Subnet: true,
  skip: true,
  shadow: true,
  problemDetails: true,
  metrics: true,
  allow: true,
  deny: true,
  defaults: true,
  errorMessage: true,
  redisCalls: true,
  strictDurations: true,
  inMemory: true,
  overload: true,
  upstreams: true,
};
const MODULE_OPTION_NAMES = Object.keys(MODULE_OPTIONS);

/**
 * Checks the module's own options when the module starts, so a typo fails start-up instead
 * of surfacing as a quiet default (`onStoreError: 'deny '` would otherwise fail open).
 */
export function validateModuleOptions(options: RateLimiterModuleOptions): void {
  const fail = (option: string, value: unknown, expected: string): never => {
    throw new LimiterConfigError(limiterMessages.invalidOption(WHERE, option, value, expected));
  };
  const unknown = Object.keys(options).filter((name) => !MODULE_OPTION_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new LimiterConfigError(
      limiterMessages.unknownOptions(WHERE, unknown, MODULE_OPTION_NAMES),
    );
  }
  if (options.redis !== undefined && options.store !== undefined) {
    throw new LimiterConfigError(limiterMessages.conflictingOptions(WHERE, 'redis', 'store'));
  }
  if (typeof options.redis === 'string') {
    const problem = redisUrlProblem(options.redis);
    if (problem) {
      const shown = `'${withoutPassword(options.redis)}'`;
      throw new LimiterConfigError(limiterMessages.redisMisconfigured(WHERE, shown, problem));
    }
  }
  const { onStoreError, storeTimeout, headers, keyPrefix, global } = options;
  const choice = (option: string, value: unknown, choices: readonly unknown[]) => {
    if (value !== undefined && !choices.includes(value)) {
      throw new LimiterConfigError(limiterMessages.invalidChoice(WHERE, option, value, choices));
    }
  };
  choice('onStoreError', onStoreError, POLICIES);
  choice('redisCalls', options.redisCalls, REDIS_CALL_MODES);
  if (
    storeTimeout !== undefined &&
    !(
      typeof storeTimeout === 'number' &&
      Number.isFinite(storeTimeout) &&
      storeTimeout > 0 &&
      storeTimeout <= MAX_TIMER_MS
    )
  ) {
    fail('storeTimeout', storeTimeout, `a number of milliseconds > 0 and <= ${MAX_TIMER_MS}`);
  }
  choice('headers', headers, HEADER_MODES);
  if (keyPrefix !== undefined && typeof keyPrefix !== 'string') {
    fail('keyPrefix', keyPrefix, 'a string');
  }
  if (global !== undefined && typeof global !== 'boolean') fail('global', global, 'a boolean');
  const { strictDurations } = options;
  if (strictDurations !== undefined && typeof strictDurations !== 'boolean') {
    fail('strictDurations', strictDurations, 'a boolean');
  }
  const { shadow, problemDetails } = options;
  if (shadow !== undefined && typeof shadow !== 'boolean') fail('shadow', shadow, 'a boolean');
  if (problemDetails !== undefined && typeof problemDetails !== 'boolean') {
    fail('problemDetails', problemDetails, 'a boolean');
  }
  const { errorMessage } = options;
  if (
    errorMessage !== undefined &&
    typeof errorMessage !== 'string' &&
    typeof errorMessage !== 'function'
  ) {
    fail('errorMessage', errorMessage, 'a string or a function (context, detail) => string');
  }
  const { ipv6Subnet } = options;
  if (
    ipv6Subnet !== undefined &&
    ipv6Subnet !== false &&
    !(Number.isInteger(ipv6Subnet) && ipv6Subnet >= 1 && ipv6Subnet <= 128)
  ) {
    fail('ipv6Subnet', ipv6Subnet, 'an integer from 1 to 128, or false');
  }
  // Parsed here to fail start-up on a wrong network; the module's NetworkPolicy parses again.
  new NetworkPolicy(options, WHERE);
  const { metrics } = options;
  if (metrics !== undefined && metrics !== false) validateMetrics(metrics, fail);
  for (const name of FUNCTION_OPTIONS) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'function') fail(name, value, 'a function');
  }
  if (options.overload !== undefined) overloadSettings(options.overload, WHERE, 'overload.');
  // Each default compiled as a decorator would be, with no handler: its options and key.
  for (const definition of defaultDefinitions(options.defaults, WHERE)) {
    compileLimit({ ...definition, decorator: `${WHERE}: ${definition.decorator}` }, '', '');
  }
}

function validateMetrics(
  metrics: unknown,
  fail: (option: string, value: unknown, expected: string) => never,
): void {
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    fail('metrics', metrics, 'false or { nearLimit?: number }');
  }
  const { nearLimit, ...unknown } = metrics as { nearLimit?: unknown };
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined)
    fail(`metrics.${extra}`, unknown[extra as never], 'absent (unknown option)');
  if (
    nearLimit !== undefined &&
    !(typeof nearLimit === 'number' && nearLimit >= 0 && nearLimit <= 1)
  ) {
    fail('metrics.nearLimit', nearLimit, 'a number from 0 to 1');
  }
}
