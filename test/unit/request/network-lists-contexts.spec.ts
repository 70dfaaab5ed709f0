import { HttpException, Injectable } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { WsException } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import { CountLimit, MemoryStore, RateLimiterModule, RateLimitGuard } from '../../../src';

@Injectable()
class Handlers {
  @CountLimit({ limit: 1, period: 60 })
  hit() {
    return 'ok';
  }
}

/** A denied network on GraphQL and WebSocket: the context's own 403. */
describe('deny on GraphQL and WebSocket contexts', () => {
  let guard: RateLimitGuard;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot({ store: new MemoryStore(), deny: ['203.0.113.0/24'] })],
      providers: [Handlers],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    guard = moduleRef.get(RateLimitGuard);
  });
  const contextOf = (type: string, args: unknown[]) => {
    const host = new ExecutionContextHost(args, Handlers, Handlers.prototype.hit);
    host.setType(type);
    return host;
  };

  it('GraphQL: a FORBIDDEN error with status 403', async () => {
    const req = { ip: '203.0.113.5', headers: {} };
    const error = await Promise.resolve(
      guard.canActivate(contextOf('graphql', [{}, {}, { req }, {}])),
    ).catch((thrown: unknown) => thrown);
    // An HttpException, which Nest does not log; graphql-js makes it a GraphQL error with
    // its extensions.
    expect(error).toBeInstanceOf(HttpException);
    expect((error as HttpException).getStatus()).toBe(403);
    expect((error as Error & { extensions: unknown }).extensions).toEqual({
      code: 'FORBIDDEN',
      statusCode: 403,
    });
  });

  it('WebSocket: a WsException with status 403; another address passes', async () => {
    const denied = { handshake: { address: '203.0.113.5', headers: {} } };
    const error = await Promise.resolve(guard.canActivate(contextOf('ws', [denied, {}]))).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(WsException);
    expect((error as WsException).getError()).toEqual({ statusCode: 403, message: 'Forbidden' });
    const other = { handshake: { address: '198.51.100.1', headers: {} } };
    await expect(guard.canActivate(contextOf('ws', [other, {}]))).resolves.toBe(true);
    expect(error).not.toBeInstanceOf(HttpException);
  });
});
