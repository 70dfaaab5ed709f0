import { createHash } from 'node:crypto';
import { Decision } from '../contracts/decision';
import { ExecutionContext, Logger } from '@nestjs/common';
import { HeadersMode } from '../rate-limiter.options';
import { errorMessageFor, RateLimitErrorMessage } from '../errors/rate-limit-error-message';
import { CompiledLimit } from '../compile/compiled-limit';
import { reservedPermits, Taken } from './taken-permits';

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

/** One limit's decision for a request, as the headers describe it. */
interface DescribedLimit {
  limit: CompiledLimit;
  key: string;
  decision: Decision;
}

/**
 * The headers of a request's enforced limits: legacy ones describe the limit with the
 * least remaining among the denying ones (or all, when none denies); IETF ones every limit.
 */
export function describeLimits(
  response: unknown,
  mode: HeadersMode,
  enforced: readonly Taken[],
  denied: readonly Taken[],
): void {
  const tightestOf = denied.length > 0 ? denied : enforced;
  let tightest = tightestOf[0];
  for (const outcome of tightestOf) {
    if (outcome.decision.remaining < tightest.decision.remaining) tightest = outcome;
  }
  // The allowed limits of a denied request keep nothing (all or nothing): say so.
  const described = denied.length > 0 ? enforced.map(asGivenBack) : enforced;
  setLimitHeaders(response, mode, described, tightest);
}

/** An allowed outcome as it stands once its permits are given back. */
function asGivenBack(taken: Taken): DescribedLimit {
  const { decision } = taken;
  if (!decision.allowed) return taken;
  const remaining = Math.min(quotaOf(decision), decision.remaining + reservedPermits(taken));
  return { ...taken, decision: { ...decision, remaining } };
}

/**
 * Legacy headers describe `tightest` (the limit with the least remaining, or the denying
 * one): X-RateLimit-Limit/Remaining/Reset (seconds). IETF headers
 * (draft-ietf-httpapi-ratelimit-headers, structured-field lists) describe every limit that
 * applied, each by its name: `RateLimit-Policy: "burst";q=5;w=1, "daily";q=100;w=86400`
 * and `RateLimit: "burst";r=4;t=1, "daily";r=99;t=86400` (see {@link policyItem}).
 */
function setLimitHeaders(
  response: any,
  mode: HeadersMode,
  described: readonly DescribedLimit[],
  tightest: DescribedLimit,
): void {
  if (mode === false) return;
  if (mode === 'legacy' || mode === 'both') {
    const { decision } = tightest;
    setHeader(response, 'X-RateLimit-Limit', quotaOf(decision));
    setHeader(response, 'X-RateLimit-Remaining', decision.remaining);
    setHeader(response, 'X-RateLimit-Reset', seconds(decision.resetMs));
  }
  if (mode === 'ietf' || mode === 'both') {
    setHeader(response, 'RateLimit-Policy', described.map(policyItem).join(', '));
    setHeader(response, 'RateLimit', described.map(stateItem).join(', '));
  }
}

/** A limit's quota as headers show it: whole permits. */
const quotaOf = (decision: Decision) => Math.floor(decision.limit + 1e-9);

/** What a limit's items say whatever the request: its name, and its policy's window and unit. */
interface ItemParts {
  name: string;
  policyTail: string;
}

/**
 * Per limit, built on first use: limits are as many as the app declares. A limit compiled
 * for one request (its options resolved from it) is not kept: it is one of many.
 */
const itemParts = new WeakMap<CompiledLimit, ItemParts>();

function itemPartsOf(limit: CompiledLimit): ItemParts {
  let parts = itemParts.get(limit);
  if (parts === undefined) {
    const window =
      limit.windowSeconds === undefined ? '' : `;w=${Math.max(1, Math.ceil(limit.windowSeconds))}`;
    const unit = limit.holdsSlot ? ';qu="concurrent-requests"' : '';
    parts = { name: sfString(limit.name), policyTail: window + unit };
    if (!limit.partition) itemParts.set(limit, parts);
  }
  return parts;
}

/**
 * A quota policy item: the limit's name, `q` its quota, `w` its window in seconds (none for
 * concurrency), `qu="concurrent-requests"` for concurrency (the draft's default unit is
 * requests), and `pk` (see {@link partitionKey}).
 */
function policyItem({ limit, key, decision }: DescribedLimit): string {
  const { name, policyTail } = itemPartsOf(limit);
  return `${name};q=${quotaOf(decision)}${policyTail}${partitionKey(limit, key)}`;
}

/** A service limit item: `r` the quota left, `t` seconds until it is whole again, and `pk`. */
function stateItem({ limit, key, decision }: DescribedLimit): string {
  const reset = seconds(decision.resetMs);
  const { name } = itemPartsOf(limit);
  return `${name};r=${decision.remaining};t=${reset}${partitionKey(limit, key)}`;
}

const partitionKeys = new Map<string, string>();

/**
 * `pk`, only where it is safe to show: a key with no request value in it (METHOD, or a
 * template without expressions), as the first 12 bytes of its SHA-256, so the key's layout
 * (class and method names) stays private. Keys of a client (IP, user, template values) get
 * none: a hash of an IPv4 address or of a small id space is reversed by trying them all.
 */
function partitionKey(limit: CompiledLimit, key: string): string {
  if (limit.keyForm.length !== 1) return '';
  let pk = partitionKeys.get(key);
  if (pk === undefined) {
    // Fixed keys are as many as the app's limits: the map stays small.
    pk = `;pk=:${createHash('sha256').update(key).digest().subarray(0, 12).toString('base64')}:`;
    partitionKeys.set(key, pk);
  }
  return pk;
}

/** A structured-field string: printable ASCII, with `"` and `\` escaped. */
function sfString(text: string): string {
  return `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
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

/** What a denied request is told: when to retry, which limits denied it, and why. */
interface Denial {
  /** The `Retry-After` seconds (-1: never). */
  retryAfter: number;
  retryAfterMs: number;
  violated: string[];
  message?: string;
}

/**
 * A denied request's answer, its `Retry-After` header set: the longest wait of the limits
 * that denied it, or none (-1) when one can never pass, and the module's `errorMessage`.
 */
export function denialOf(
  denied: readonly Taken[],
  response: unknown,
  context: ExecutionContext,
  options: { errorMessage?: RateLimitErrorMessage },
  logger: Logger,
): Denial {
  const retries = denied.map(
    ({ limit, decision }) => limit.retryAfterMs?.(decision) ?? decision.retryAfterMs,
  );
  // A request costing more than a limit holds can never pass: no retry time is true.
  const retryAfterMs = retries.some((ms) => ms < 0) ? -1 : Math.max(...retries);
  const retryAfter = setRetryAfter(response, retryAfterMs);
  const message = options.errorMessage
    ? denialMessage(options.errorMessage, context, denied, retries, logger)
    : undefined;
  return {
    retryAfter,
    retryAfterMs,
    violated: denied.map((outcome) => outcome.limit.name),
    message,
  };
}

/**
 * The module's `errorMessage` for a denial, told of the limit with the longest wait (the one
 * the client must wait out), or of one that can never pass (`retries` < 0) first.
 */
function denialMessage(
  errorMessage: RateLimitErrorMessage,
  context: ExecutionContext,
  denied: readonly Taken[],
  retries: readonly number[],
  logger: Logger,
): string {
  let chosen = 0;
  for (let i = 1; i < retries.length; i++) {
    const [current, best] = [retries[i], retries[chosen]];
    if (best >= 0 && (current < 0 || current > best)) chosen = i;
  }
  const { limit, decision } = denied[chosen];
  const retryAfterMs = retries[chosen];
  return errorMessageFor(
    errorMessage,
    context,
    {
      name: limit.name,
      limit: quotaOf(decision),
      retryAfter: retryAfterMs < 0 ? -1 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
      retryAfterMs,
      violatedPolicies: denied.map((outcome) => outcome.limit.name),
    },
    logger,
  );
}
