import type { CompiledKeyTemplate, KeyExpression } from './key-template.parser';

/**
 * What a key expression can read: the parts of the current request. Fields are `unknown`
 * because they come from the client (or from the app's auth layer) and are checked on read.
 */
export interface KeyContext {
  /** Route parameters. */
  params?: unknown;
  /** Parsed query string; may hold nested objects and arrays (`?a[b]=1`). */
  query?: unknown;
  /** Parsed request body. */
  body?: unknown;
  /** Request headers, with lower-case names as Node provides them. */
  headers?: unknown;
  /** The authenticated user, as the app's auth layer left it on the request. */
  user?: unknown;
  /** The client IP address. */
  ip?: string;
  /** The HTTP method, e.g. `POST`. */
  method?: string;
  /** The request path. */
  path?: string;
}

/**
 * A key expression found no value, or an empty string, in the request.
 * The guard answers 400 Bad Request naming the expression.
 *
 * @publicApi
 */
export class KeyValueMissingError extends Error {
  override readonly name = 'KeyValueMissingError';

  constructor(readonly expression: string) {
    super(`Missing value for key expression '${expression}'`);
  }
}

/**
 * A key expression found a value that cannot be part of a key (an object, an array, a
 * function, a non-finite number). The guard answers 400 Bad Request naming the expression.
 *
 * @publicApi
 */
export class KeyValueInvalidError extends Error {
  override readonly name = 'KeyValueInvalidError';

  constructor(
    readonly expression: string,
    readonly got: string,
  ) {
    super(`Key expression '${expression}' must be a string or number, got ${got}`);
  }
}

const hasOwn = (target: object, name: string): boolean =>
  Object.prototype.hasOwnProperty.call(target, name);

/**
 * Builds the key a compiled template describes for one request. Only own properties are
 * read and nothing is compiled or called, so a client cannot reach prototype members
 * (`#{body.toString}` is missing, not a function).
 * `?.` and `.` behave alike: anything absent along the path makes the value missing.
 *
 * Roots `params`, `query`, `body`, `headers`, `user`, `ip`, `method` and `path` read that
 * field of the context; any other root name is looked up in `params`, then `query`, then
 * `body`, the first that has it as an own property with a value other than `undefined`.
 *
 * @throws KeyValueMissingError when a value is `undefined`, `null` or `''`.
 * @throws KeyValueInvalidError when a value is an object, array, function, symbol or a
 * non-finite number.
 */
export function evaluateKeyTemplate(template: CompiledKeyTemplate, context: KeyContext): string {
  const { literals, expressions } = template;
  let key = literals[0];
  for (let i = 0; i < expressions.length; i++) {
    key += evaluateExpression(expressions[i], context) + literals[i + 1];
  }
  return key;
}

function evaluateExpression(expression: KeyExpression, context: KeyContext): string {
  let value = readRoot(expression.root, context);
  const { path } = expression;
  for (let i = 0; i < path.length && value !== undefined; i++) {
    // A string or number intermediate yields missing: 'abc'.length is not a key.
    value = readOwn(value, path[i]);
  }
  return formatValue(value, expression.source);
}

function readRoot(root: string, context: KeyContext): unknown {
  switch (root) {
    case 'params':
      return context.params;
    case 'query':
      return context.query;
    case 'body':
      return context.body;
    case 'headers':
      return context.headers;
    case 'user':
      return context.user;
    case 'ip':
      return context.ip;
    case 'method':
      return context.method;
    case 'path':
      return context.path;
    default:
      return readBare(root, context);
  }
}

/** The order a Spring handler argument of that name would be bound from. */
function readBare(name: string, context: KeyContext): unknown {
  let value = readOwn(context.params, name);
  if (value === undefined) value = readOwn(context.query, name);
  if (value === undefined) value = readOwn(context.body, name);
  return value;
}

function readOwn(source: unknown, name: string): unknown {
  if (typeof source !== 'object' || source === null || !hasOwn(source, name)) return undefined;
  return (source as Record<string, unknown>)[name];
}

function formatValue(value: unknown, expression: string): string {
  switch (typeof value) {
    case 'string':
      if (value === '') throw new KeyValueMissingError(expression);
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new KeyValueInvalidError(expression, String(value));
      return String(value);
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
      throw new KeyValueMissingError(expression);
    case 'object':
      if (value === null) throw new KeyValueMissingError(expression);
      throw new KeyValueInvalidError(expression, Array.isArray(value) ? 'array' : 'object');
    default:
      throw new KeyValueInvalidError(expression, typeof value);
  }
}
