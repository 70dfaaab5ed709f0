import { ExecutionContext, HttpException } from '@nestjs/common';
import { RequestReadingOptions } from './request-reading.options';
import { GuardedRequest, LazyFacts, readHttp } from './http-context';

const NO_REQUEST =
  "GraphQL context has no HTTP request: return { req, res } from the GraphQL driver's context option";

/**
 * A resolver call: the HTTP request behind it, found in the GraphQL context that the
 * driver built (`{ req, res }` from Apollo's `context` option, `{ req, reply }` from
 * Mercurius). Arguments are `[root, args, context, info]`; reading them directly keeps
 * `@nestjs/graphql` out of our imports.
 */
export function readGraphql(
  context: ExecutionContext,
  options: RequestReadingOptions,
): GuardedRequest {
  const gqlContext = context.getArgs()[2];
  const request = gqlContext?.req ?? gqlContext?.request ?? gqlContext?.reply?.request;
  const response = gqlContext?.res ?? gqlContext?.reply ?? request?.res;
  if (request && typeof request === 'object') return readHttp(request, response, options);
  // A METHOD limit needs nothing; a key that needs the request must not share one '' IP.
  const missing = (): never => {
    throw new Error(NO_REQUEST);
  };
  return { facts: new LazyFacts(missing, missing, missing, false), request: undefined };
}

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * What a resolver's client is told of a refusal. graphql-js turns any error a resolver
 * throws into a GraphQL error with the thrown error's `extensions`, so this need not be a
 * GraphQLError itself; it is an HttpException because Nest's handler of resolver errors
 * logs every other error at ERROR with its stack, and a flood of denials must not become a
 * flood of logs. Its response is the message alone, so Apollo's driver, which rewrites an
 * HttpException whose response has a `statusCode`, leaves these `extensions` as they are.
 */
class GraphqlRefusal extends HttpException {
  constructor(
    message: string,
    status: number,
    readonly extensions: Record<string, unknown>,
  ) {
    super(message, status);
  }
}

/**
 * The HTTP exception as a resolver's error: its body (`statusCode`, `retryAfter`...) in
 * `extensions`, with a `code` as Apollo's own errors have.
 */
export function toGraphQLError(exception: HttpException): Error {
  const body = exception.getResponse();
  const { message, ...rest } =
    typeof body === 'object' ? (body as Record<string, unknown>) : { message: body };
  const status = exception.getStatus();
  return new GraphqlRefusal(String(message ?? exception.message), status, {
    code: CODES[status] ?? 'HTTP_ERROR',
    statusCode: status,
    ...rest,
  });
}
