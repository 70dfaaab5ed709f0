import { escapeKeyText } from './key-builder';
import type { CompiledKeyTemplate, KeyExpression } from './key-template.parser';
import {
  KeyValueConflictError,
  KeyValueInvalidError,
  KeyValueMissingError,
} from './key-value.errors';

export { KeyValueConflictError, KeyValueInvalidError, KeyValueMissingError };

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

const hasOwn = (target: object, name: string): boolean =>
  Object.prototype.hasOwnProperty.call(target, name);

/**
 * Builds the key a compiled template describes for one request. Only own properties are
 * read and nothing is compiled or called, so a client cannot reach prototype members
 * (`#{body.toString}` is missing, not a function).
 * `?.` and `.` behave alike: anything absent along the path makes the value missing.
 * `a ?? b` reads `b` when `a` is missing or empty (not when it is invalid or in conflict).
 *
 * Roots `params`, `query`, `body`, `headers`, `user`, `ip`, `method` and `path` read that
 * field of the context; any other root name is looked up in `params`, then `query`, then
 * `body`, the first that has it as an own property with a value other than `undefined`, and
 * every other one that has it must give the same key text.
 *
 * @throws KeyValueMissingError when a value is `undefined`, `null` or `''`.
 * @throws KeyValueInvalidError when a value is an object, array, function, symbol, a
 * non-finite number, or a string with a lone UTF-16 surrogate.
 * @throws KeyValueConflictError when a bare name has different values in two sources.
 */
export function evaluateKeyTemplate(template: CompiledKeyTemplate, context: KeyContext): string {
  const { literals, expressions } = template;
  let key = literals[0];
  for (let i = 0; i < expressions.length; i++) {
    key += chainValue(expressions[i], context).text + literals[i + 1];
  }
  return key;
}

/**
 * Starts a value that a fallback operand gave, in escaped key text: escaping leaves a `%`
 * only before `25`, `7B`, `7D` or `7E`, so no value a client sends can spell it. Without it,
 * `#{headers['x-api-key'] ?? ip}` would let a client send another client's IP as its API
 * key and spend that client's limit.
 */
export const FALLBACK_MARKER = '%!';

/**
 * The key text of a template with `??` for one request, escaped as every key text is
 * ({@link escapeKeyText}): a value from the first operand as is, one from a fallback
 * operand as `%!<operand>:<value>`, so the values of two operands never share a key.
 *
 * @throws as {@link evaluateKeyTemplate}.
 */
export function evaluateKeyText(template: CompiledKeyTemplate, context: KeyContext): string {
  const { literals, expressions } = template;
  let key = escapeKeyText(literals[0]);
  for (let i = 0; i < expressions.length; i++) {
    const { text, from } = chainValue(expressions[i], context);
    const value = escapeKeyText(text);
    key +=
      (from === expressions[i]
        ? value
        : `${FALLBACK_MARKER}${escapeKeyText(from.source)}:${value}`) +
      escapeKeyText(literals[i + 1]);
  }
  return key;
}

/** The first operand of `a ?? b ?? c` with a value, and the value; only missing falls through. */
function chainValue(
  expression: KeyExpression,
  context: KeyContext,
): { text: string; from: KeyExpression } {
  const { fallbacks } = expression;
  if (!fallbacks) return { text: evaluateExpression(expression, context), from: expression };
  for (const operand of [expression, ...fallbacks]) {
    try {
      return { text: evaluateExpression(operand, context), from: operand };
    } catch (error) {
      if (!(error instanceof KeyValueMissingError)) throw error;
    }
  }
  throw new KeyValueMissingError(
    [expression, ...fallbacks].map((operand) => operand.source).join(' ?? '),
  );
}

/** The roots that read a field of the request; any other name is a bare one. */
export const NAMED_ROOTS: ReadonlySet<string> = new Set([
  'params',
  'query',
  'body',
  'headers',
  'user',
  'ip',
  'method',
  'path',
]);

function evaluateExpression(expression: KeyExpression, context: KeyContext): string {
  if (!NAMED_ROOTS.has(expression.root)) return evaluateBare(expression, context);
  const value = readPath(readRoot(expression.root, context), expression);
  return formatValue(value, expression.source);
}

function readPath(root: unknown, expression: KeyExpression): unknown {
  let value = root;
  const { path } = expression;
  for (let i = 0; i < path.length && value !== undefined; i++) {
    // A string or number intermediate yields missing: 'abc'.length is not a key.
    value = readOwn(value, path[i]);
  }
  return value;
}

type BareSource = 'params' | 'query' | 'body';
/** Where a bare name is looked up, in the order a Spring handler argument would be bound. */
const BARE_SOURCES: readonly BareSource[] = ['params', 'query', 'body'];

/**
 * A bare name: the first of `params`, `query`, `body` that has it, provided every other one
 * that has it agrees (docs/design.md#keys).
 */
function evaluateBare(expression: KeyExpression, context: KeyContext): string {
  let found: string | undefined;
  let foundIn: BareSource | undefined;
  for (const source of BARE_SOURCES) {
    const value = readPath(readOwn(context[source], expression.root), expression);
    if (value === undefined) continue;
    const formatted = formatValue(value, expression.source);
    if (found === undefined) {
      found = formatted;
      foundIn = source;
    } else if (formatted !== found) {
      throw new KeyValueConflictError(expression.source, [foundIn!, source]);
    }
  }
  if (found === undefined) throw new KeyValueMissingError(expression.source);
  return found;
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
      return undefined;
  }
}

function readOwn(source: unknown, name: string): unknown {
  if (typeof source !== 'object' || source === null || !hasOwn(source, name)) return undefined;
  return (source as Record<string, unknown>)[name];
}

/** `String.prototype.isWellFormed` (Node 20), not yet in the compiler's library. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

function formatValue(value: unknown, expression: string): string {
  switch (typeof value) {
    case 'string':
      if (value === '') throw new KeyValueMissingError(expression);
      // UTF-8 turns every lone surrogate into U+FFFD: distinct values would share one key.
      if (!(value as unknown as WellFormedCheck).isWellFormed()) {
        throw new KeyValueInvalidError(expression, 'a string with a lone UTF-16 surrogate');
      }
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
