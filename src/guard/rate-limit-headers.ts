import { Decision } from '../algorithms/decision';
import { HeadersMode } from '../rate-limiter.options';
import { CompiledLimit } from './compiled-limit';

/**
 * Sets a header on an Express response (Node's own `setHeader`, which Express's `header`
 * ends up calling after extra work) or a Fastify reply (`header`; it has no `setHeader`).
 */
export function setHeader(response: any, name: string, value: string | number): void {
  if (!response) return;
  if (typeof response.setHeader === 'function') response.setHeader(name, String(value));
  else if (typeof response.header === 'function') response.header(name, String(value));
}

const seconds = (milliseconds: number) => Math.max(0, Math.ceil(milliseconds / 1000));

/**
 * Describes one limit (the guard passes the one with the least remaining). Legacy:
 * X-RateLimit-Limit/Remaining/Reset (seconds). IETF (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "<name>";q=<quota>;w=<window>` and `RateLimit: "<name>";r=<remaining>;t=<reset>`.
 */
export function setLimitHeaders(
  response: any,
  mode: HeadersMode,
  limit: CompiledLimit,
  decision: Decision,
): void {
  if (mode === false) return;
  const quota = Math.floor(decision.limit + 1e-9);
  const reset = seconds(decision.resetMs);
  if (mode === 'legacy' || mode === 'both') {
    setHeader(response, 'X-RateLimit-Limit', quota);
    setHeader(response, 'X-RateLimit-Remaining', decision.remaining);
    setHeader(response, 'X-RateLimit-Reset', reset);
  }
  if (mode === 'ietf' || mode === 'both') {
    const window =
      limit.windowSeconds === undefined ? '' : `;w=${Math.max(1, Math.ceil(limit.windowSeconds))}`;
    setHeader(response, 'RateLimit-Policy', `"${limit.policyName}";q=${quota}${window}`);
    setHeader(response, 'RateLimit', `"${limit.policyName}";r=${decision.remaining};t=${reset}`);
  }
}

/**
 * Sets `Retry-After` (whole seconds, at least 1) and returns it; for a request that can never
 * pass (`retryAfterMs` < 0, a cost above the limit) sets none and returns -1.
 */
export function setRetryAfter(response: any, retryAfterMs: number): number {
  if (retryAfterMs < 0) return -1;
  const retryAfter = Math.max(1, seconds(retryAfterMs));
  setHeader(response, 'Retry-After', retryAfter);
  return retryAfter;
}
