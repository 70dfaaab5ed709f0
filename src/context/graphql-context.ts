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

type GraphQLErrorClass = new (
  message: string,
  options: { extensions: Record<string, unknown> },
) => Error;

let graphQLError: GraphQLErrorClass | undefined | null = null;

const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The HTTP exception as a GraphQL error: its body (`statusCode`, `retryAfter`...) in
 * `extensions`, with a `code` as Apollo's own errors have. `graphql` is loaded only here,
 * where a GraphQL request proves it is installed.
 */
export function toGraphQLError(exception: HttpException): Error {
  if (graphQLError === null) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      graphQLError = require('graphql').GraphQLError as GraphQLErrorClass;
    } catch {
      graphQLError = undefined;
    }
  }
  if (!graphQLError) return exception;
  const body = exception.getResponse();
  const { message, ...rest } =
    typeof body === 'object' ? (body as Record<string, unknown>) : { message: body };
  const status = exception.getStatus();
  return new graphQLError(String(message ?? exception.message), {
    extensions: { code: CODES[status] ?? 'HTTP_ERROR', statusCode: status, ...rest },
  });
}
