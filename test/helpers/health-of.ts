import { readFileSync } from 'node:fs';
import { HealthCheckError } from '@nestjs/terminus';
import type { RateLimiterHealth, RateLimiterHealthIndicator } from '../../src';

/** 11 in `npm test`, 10 and 12 in CI's runs (.ci/nest10, .ci/nest12). */
const terminus = JSON.parse(readFileSync(require.resolve('@nestjs/terminus/package.json'), 'utf8'));
const terminusMajor = Number(terminus.version.split('.')[0]);

/**
 * `isHealthy`'s answer, in the form the installed terminus reads: 11 reads down from the
 * result returned; older majors count only a thrown `HealthCheckError` as down, the result
 * in its `causes`.
 */
export async function healthOf<K extends string>(
  indicator: RateLimiterHealthIndicator,
  key: K,
): Promise<RateLimiterHealth<K>> {
  if (terminusMajor >= 11) return indicator.isHealthy(key);
  try {
    const result = await indicator.isHealthy(key);
    expect(result[key].status).toBe('up'); // down is thrown, never returned
    return result;
  } catch (error) {
    if (!(error instanceof HealthCheckError)) throw error;
    const causes = error.causes as RateLimiterHealth<K>;
    expect([causes[key].status, error.message]).toEqual([
      'down',
      `${key} is down: ${causes[key].message}`,
    ]);
    return causes;
  }
}
