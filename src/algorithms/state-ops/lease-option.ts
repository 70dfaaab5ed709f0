import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { EngineAlgorithm } from '../engine-algorithm';
import { RefundRequest } from './state-ops.model';

/** `lease`, an option of `@CountLimit`, `@RateLimit` and `@LeakyBucketLimit`. */
export interface LeaseOptions {
  /**
   * For a very hot key: each server takes up to this many permits from Redis at once and
   * hands them out itself (a whole number >= 1). Redis counts them as taken, so the servers
   * together never admit more than the limit; the leases shrink near the limit, and what a
   * server did not use goes back within a second, when the app closes, and on a live
   * override; a reset or block on any server ends every server's lease of the key. A
   * server that dies keeps up to `lease` permits from the others until the window ends.
   * See docs/hot-keys.md.
   */
  lease?: number;
}

/** A limit's lease, as its parameters carry it. */
export interface LeaseParams {
  leasePermits?: number;
}

/** The parameters of `lease` as given (absent: none), or a start-up error naming it. */
export function leaseParams(value: unknown, where: string): LeaseParams {
  if (value === undefined) return {};
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'lease', value, 'a whole number of permits >= 1'),
    );
  }
  return { leasePermits: value as number };
}

/** What a store needs to lease a limit's permits: how to give back what a server kept. */
export interface Leasable {
  refund: EngineAlgorithm<any, RefundRequest, any>;
  /** True when the limit's permits come back at the end of a window (`resetMs`): a lease ends by then. */
  endsWithWindow: boolean;
}

const leasables = new WeakMap<object, Leasable>();

/** Marks `acquire` as one whose permits a store may lease (define-algorithm.ts). */
export function markLeasable(acquire: object, leasable: Leasable): void {
  leasables.set(acquire, leasable);
}

export function leasableOf(algorithm: object): Leasable | undefined {
  return leasables.get(algorithm);
}

/**
 * The permits a lease may serve `request` from: one that takes permits now and waits for
 * none (a token bucket's request with a timeout decides in Redis, where waiters get their
 * slots). Undefined when it must be decided in Redis; 0 (a peek) too.
 */
export function leasedPermits(request: unknown): number | undefined {
  const { permits = 1, timeoutMicros } = (request ?? {}) as {
    permits?: number;
    timeoutMicros?: number;
  };
  if (timeoutMicros !== undefined && timeoutMicros !== 0) return undefined;
  return permits > 0 ? permits : undefined;
}

/** `request` taking `permits` instead. */
export function withPermits<R>(request: R, permits: number): R {
  return { ...(request ?? {}), permits } as R;
}
