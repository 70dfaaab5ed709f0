import { HttpStatus, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { LimitDefinition } from '../contracts/limit-definition';
import { limitTypeOf } from '../keys/compile-key';
import { kindOf } from '../compile/compiled-limit';
import { HeadersMode } from '../rate-limiter.options';

type Header = { description: string; schema: { type: string } };

const RETRY_AFTER: Header = {
  description: 'Seconds until the request could be allowed (absent when it never can).',
  schema: { type: 'integer' },
};
const LEGACY: Record<string, Header> = {
  'X-RateLimit-Limit': {
    description: 'The quota of the tightest limit.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'What is left of it.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'Seconds until it is whole again.',
    schema: { type: 'integer' },
  },
};
const IETF: Record<string, Header> = {
  RateLimit: {
    description: 'Each limit by name: r, the quota left; t, seconds until it is whole again.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'Each limit by name: q, its quota; w, its window in seconds.',
    schema: { type: 'string' },
  },
};

/** The rate-limit headers a 429 carries, as the module's `headers` option sends them. */
export function headersOf(mode: HeadersMode): Record<string, Header> {
  // A copy per route: @nestjs/swagger keeps what it is given.
  return structuredClone({
    'Retry-After': RETRY_AFTER,
    ...(mode === 'legacy' || mode === 'both' ? LEGACY : {}),
    ...(mode === 'ietf' || mode === 'both' ? IETF : {}),
  });
}

const JSON_BODY = {
  type: 'object',
  properties: {
    statusCode: { type: 'integer', example: 429 },
    message: { type: 'string', example: 'Too Many Requests' },
    retryAfter: { type: 'integer', description: 'Seconds, as Retry-After; -1 when never.' },
  },
};
const PROBLEM_BODY = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer', example: 429 },
    'violated-policies': { type: 'array', items: { type: 'string' } },
    retryAfter: { type: 'integer' },
    detail: { type: 'string', description: 'The errorMessage option, when set.' },
  },
};

/** The body of a 429, as `problemDetails` writes it. */
export function bodyOf(problemDetails: boolean): object {
  return structuredClone(problemDetails ? PROBLEM_BODY : JSON_BODY);
}

/**
 * The status a route answers when it says nothing else, as @nestjs/swagger documents a route
 * without responses of its own: the one response that must stay beside the 429.
 */
export function defaultStatusOf(handler: Function): number {
  const code = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  if (code) return code;
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return method === RequestMethod.POST ? HttpStatus.CREATED : HttpStatus.OK;
}

/** One limit as the `x-ratelimit` extension lists it. */
interface DocumentedPolicy {
  name: string;
  /** The decorator: `@CountLimit`. */
  limit: string;
  /** What requests are counted by: IP, USER, METHOD, or the key template. */
  key: string;
  /** Its options in the decorator's units; one that is a function of the request says so. */
  options: Record<string, number | string | boolean>;
  shadow?: true;
}

/** A limit's policy: its name, decorator, key and options, as the decorator declared them. */
export function policyOf(
  definition: LimitDefinition,
  name: string,
  shadowByDefault: boolean,
): DocumentedPolicy {
  const { options } = definition;
  const limitType = limitTypeOf(options);
  const documented: Record<string, number | string | boolean> = {};
  const kind = kindOf(definition);
  for (const option of kind.optionNames) {
    const value = options[option];
    if (typeof value === 'function') documented[option] = 'per request';
    else if (['number', 'string', 'boolean'].includes(typeof value))
      documented[option] = value as number | string | boolean;
  }
  return {
    name,
    limit: kind.decorator,
    key: limitType === 'CUSTOM' ? String(options.key) : limitType,
    options: documented,
    ...((options.shadow ?? shadowByDefault) ? { shadow: true as const } : {}),
  };
}
