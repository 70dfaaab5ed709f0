import { Injectable } from '@nestjs/common';
import { optionalPackage } from '../optional-package';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';

/** What is read of `@nestjs/terminus`: v11 has the service, older majors the error to throw. */
interface Terminus {
  HealthIndicatorService?: unknown;
  HealthCheckError: new (message: string, causes: unknown) => Error;
}

/** `{ [key]: { status, ...details } }`: what terminus's `HealthCheckService.check` collects. */
export type RateLimiterHealth<Key extends string = string> = Record<
  Key,
  { status: 'up' | 'down'; breaker: 'open' | 'closed'; message?: string }
>;

/**
 * The rate-limit store as a `@nestjs/terminus` health indicator: up while the store answers,
 * down with the cause and the circuit breaker's state when it does not. Provided by
 * `RateLimiterModule`; `@nestjs/terminus` is an optional peer (without it, `isHealthy` still
 * answers the same object).
 *
 * @example
 * ```ts
 * @Get('health')
 * @HealthCheck()
 * check() {
 *   return this.health.check([() => this.rateLimiter.isHealthy('rateLimiter')]);
 * }
 * ```
 * @see docs/managed-redis.md
 * @publicApi
 */
@Injectable()
export class RateLimiterHealthIndicator {
  constructor(private readonly store: FailurePolicyStore) {}

  /**
   * The store's health under `key`. Down is returned where terminus >= 11 reads it
   * (`HealthIndicatorService`), and thrown as its `HealthCheckError` for older majors, which
   * only count a thrown error as down.
   */
  async isHealthy<Key extends string>(key: Key): Promise<RateLimiterHealth<Key>> {
    const { up, cause, breaker } = await this.store.health();
    const details = up ? { breaker } : { message: cause, breaker };
    const result = { [key]: { status: up ? 'up' : 'down', ...details } } as RateLimiterHealth<Key>;
    const terminus = optionalPackage<Terminus>('@nestjs/terminus');
    if (up || !terminus || terminus.HealthIndicatorService) return result;
    // Terminus < 11 only counts a thrown HealthCheckError as down.
    throw new terminus.HealthCheckError(`${key} is down: ${cause}`, result);
  }
}
