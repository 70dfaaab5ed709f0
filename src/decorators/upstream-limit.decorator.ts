import { UPSTREAM_LIMIT_METADATA } from '../rate-limiter.constants';

/** Options of {@link UpstreamLimit}. */
export interface UpstreamLimitOptions {
  /** The tenant of a call, from the method's arguments: tenants share a saturated budget fairly. */
  tenant?: (...args: any[]) => string;
  /** The tenant's weight (> 0), the same for every call of the method. Default 1. */
  weight?: number;
}

/** What `@UpstreamLimit` records on a method. */
export interface UpstreamLimitMetadata {
  upstream: string;
  options: UpstreamLimitOptions;
}

/**
 * Sends every call of a provider's method through the upstream's budget
 * (`upstream.call`): it waits for its slot, and its result or error teaches the budget.
 * The method then returns a promise. On any injectable (a service, a repository), not only
 * on controllers; the module wraps the method when the app starts.
 *
 * @example
 * ```ts
 * @UpstreamLimit('openai', { tenant: (customerId: string) => customerId })
 * complete(customerId: string, prompt: string) { return this.client.complete(prompt); }
 * ```
 * @publicApi
 */
export function UpstreamLimit(
  upstream: string,
  options: UpstreamLimitOptions = {},
): MethodDecorator {
  return (_target, _property, descriptor) => {
    const metadata: UpstreamLimitMetadata = { upstream, options };
    Reflect.defineMetadata(UPSTREAM_LIMIT_METADATA, metadata, descriptor.value as object);
  };
}
