import { ExecutionContext, HttpException } from '@nestjs/common';
import { RateLimitExceededException } from '../../../src';
import { readGraphql, toGraphQLError } from '../../../src/context/graphql-context';

const resolverCall = (gqlContext: unknown) =>
  ({ getArgs: () => [{}, {}, gqlContext, {}] }) as unknown as ExecutionContext;

describe('a GraphQL resolver call', () => {
  it("finds the HTTP request in Apollo's { req, res } and in Mercurius's reply", () => {
    const req = { ip: '10.0.0.1', headers: {} };
    const res = { setHeader: () => undefined };
    expect(readGraphql(resolverCall({ req, res }), {})).toMatchObject({
      request: req,
      response: res,
    });
    const reply = { request: { ip: '10.0.0.2', headers: {} } };
    const mercurius = readGraphql(resolverCall({ reply }), {});
    expect(mercurius).toMatchObject({ request: reply.request, response: reply });
    expect(mercurius.facts.ip).toBe('10.0.0.2');
  });

  it('without a request, a key that needs one fails naming the context option', () => {
    const { facts } = readGraphql(resolverCall({}), {});
    expect(() => facts.ip).toThrow(
      "GraphQL context has no HTTP request: return { req, res } from the GraphQL driver's context option",
    );
  });

  it('turns the HTTP exception into a GraphQL error with the body in extensions', () => {
    const error = toGraphQLError(new RateLimitExceededException(7)) as Error & {
      extensions: unknown;
    };
    expect(error.message).toBe('Too Many Requests');
    // Nest logs any other error a resolver throws at ERROR with its stack.
    expect(error).toBeInstanceOf(HttpException);
    expect(error.extensions).toEqual({
      code: 'TOO_MANY_REQUESTS',
      statusCode: 429,
      retryAfter: 7,
    });
    expect(
      (toGraphQLError(new HttpException('Nope', 503)) as Error & { extensions: unknown })
        .extensions,
    ).toEqual({ code: 'SERVICE_UNAVAILABLE', statusCode: 503 });
  });
});
