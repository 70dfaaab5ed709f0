import { QuotaLimiterOptions } from '../algorithms/quota-limit/quota-limit.model';
import { quotaLimitKind } from '../algorithms/quota-limit/quota-limit.definition';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { LimitContext, Resolvable } from '../contracts/limit-context';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { evaluateKeyTemplate } from '../keys/key-template.evaluator';
import { KeyTemplateSyntaxError, parseKeyTemplate } from '../keys/key-template.parser';
import { KeyValueMissingError } from '../keys/key-value.errors';
import { limitOf } from './limit-metadata.accessor';

/** Options of {@link QuotaLimit}: `limit` permits per calendar cycle. */
export interface QuotaLimitOptions
  extends
    Omit<QuotaLimiterOptions, 'timeZone' | 'limit' | 'anchor' | 'softLimit'>,
    KeyOptions,
    CostOptions {
  limit: Resolvable<number>;
  /** A day of the month, an ISO date-time, or a function of the request (the customer's billing day). */
  anchor?: Resolvable<number | string>;
  softLimit?: Resolvable<number>;
  /** An IANA zone, a template of the request (`'#{user.timeZone}'`) or a function of it. */
  timeZone?: Resolvable<string>;
  /**
   * A template (`"#{headers['idempotency-key']}"`) or a function of the request: a request
   * whose key was charged already this cycle is charged nothing and answered as the first. A
   * request without the value is charged as usual.
   */
  idempotencyKey?: Resolvable<string | undefined>;
}

/**
 * A calendar quota: at most `limit` permits per day, week, month or year in `timeZone`, from
 * `anchor` (the billing day). A denial answers 429 until the next cycle starts.
 *
 * @example
 * ```ts
 * @QuotaLimit({ limitType: 'USER', limit: 10_000, cycle: 'month', anchor: 31, softLimit: 0.8 })
 * ```
 * @publicApi
 */
export function QuotaLimit(options: QuotaLimitOptions): ClassDecorator & MethodDecorator {
  return (target: object, property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const owner = descriptor ? (target as { constructor: { name: string } }).constructor : target;
    const handler = `${(owner as { name?: string }).name ?? ''}${property ? `.${String(property)}` : ''}`;
    const where = `${quotaLimitKind.decorator} on ${handler}`;
    const resolved: Record<string, unknown> = { ...options };
    const { timeZone, idempotencyKey } = options;
    if (isTemplate(timeZone))
      resolved.timeZone = templateFunction(timeZone, where, 'timeZone', true);
    if (typeof idempotencyKey === 'string') {
      resolved.idempotencyKey = templateFunction(idempotencyKey, where, 'idempotencyKey', false);
    }
    const decorate = limitOf(quotaLimitKind, resolved) as (...args: unknown[]) => void;
    decorate(target, property, descriptor);
  };
}

const isTemplate = (value: unknown): value is string =>
  typeof value === 'string' && value.includes('#');

/**
 * The template as a function of the request, parsed now (a syntax error fails start-up).
 * `required`: a missing value answers 400 as a key's does; else it is undefined.
 */
function templateFunction(
  template: string,
  where: string,
  option: string,
  required: boolean,
): (ctx: LimitContext) => string | undefined {
  let compiled: ReturnType<typeof parseKeyTemplate>;
  try {
    compiled = parseKeyTemplate(template);
  } catch (error) {
    if (!(error instanceof KeyTemplateSyntaxError)) throw error;
    throw new LimiterConfigError(`${where}: option '${option}': ${error.message}`, {
      cause: error,
    });
  }
  if (compiled.isConstant) return () => template;
  return (ctx) => {
    const request = ctx.request ?? {};
    try {
      return evaluateKeyTemplate(compiled, {
        params: request.params,
        query: request.query,
        body: request.body,
        headers: request.headers,
        user: ctx.user,
        ip: ctx.ip,
        method: request.method,
        path: request.path ?? request.url,
      });
    } catch (error) {
      if (!required && error instanceof KeyValueMissingError) return undefined;
      throw error;
    }
  };
}
