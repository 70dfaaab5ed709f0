import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CountLimit, RateLimiterModule } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

@Controller('fallback')
class FallbackController {
  // An API key when the client has one, else its address.
  @Get()
  @CountLimit({ key: "api:#{headers['x-api-key'] ?? ip}", limit: 2, period: 60 })
  byKeyOrIp() {
    return 'ok';
  }

  @Get('chain')
  @CountLimit({
    key: "tenant:#{query.tenant ?? headers['x-tenant'] ?? user.id}",
    limit: 1,
    period: 60,
  })
  chain() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('key fallbacks on Redis (%s)', (platform) => {
  const logger = new CaptureLogger();
  const env = useAppOnRedis([FallbackController], platform, {}, logger);

  const get = async (path: string, from: string, headers: Record<string, string> = {}) =>
    (await call(env.port, { path, headers, localAddress: from })).status;

  it('keys by the API key when sent, else by the address', async () => {
    const key = { 'x-api-key': 'K1' };
    expect([
      await get('/fallback', '127.0.0.1', key),
      await get('/fallback', '127.0.0.2', key),
      await get('/fallback', '127.0.0.3', key),
    ]).toEqual([200, 200, 429]);
    expect(await get('/fallback', '127.0.0.1', { 'x-api-key': 'K2' })).toBe(200);
    // Without a key (or with an empty one) each address has its own two.
    expect([
      await get('/fallback', '127.0.0.1'),
      await get('/fallback', '127.0.0.1', { 'x-api-key': '' }),
      await get('/fallback', '127.0.0.1'),
    ]).toEqual([200, 200, 429]);
    expect(await get('/fallback', '127.0.0.2')).toBe(200);
    expect((await env.admin.keys('countLimit:api:*')).sort()).toEqual([
      'countLimit:api:%!ip:127.0.0.1',
      'countLimit:api:%!ip:127.0.0.2',
      'countLimit:api:K1',
      'countLimit:api:K2',
    ]);
  });

  it("an API key spelled like another client's address does not spend that client's limit", async () => {
    const spoof = { 'x-api-key': '127.0.0.4' };
    expect([
      await get('/fallback', '127.0.0.1', spoof),
      await get('/fallback', '127.0.0.1', spoof),
      await get('/fallback', '127.0.0.1', spoof),
    ]).toEqual([200, 200, 429]);
    expect([await get('/fallback', '127.0.0.4'), await get('/fallback', '127.0.0.4')]).toEqual([
      200, 200,
    ]);
  });

  it('walks a chain of three and answers 400 without the template when all are missing', async () => {
    expect(await get('/fallback/chain?tenant=acme', '127.0.0.1')).toBe(200);
    expect(await get('/fallback/chain', '127.0.0.1', { 'x-tenant': 'acme' })).toBe(200);
    expect(await get('/fallback/chain?tenant=acme', '127.0.0.1')).toBe(429);
    const replies = [
      await call(env.port, { path: '/fallback/chain' }),
      await call(env.port, { path: '/fallback/chain?tenant=' }),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        statusCode: 400,
        message: 'Missing a value this request is rate-limited by',
        error: 'Bad Request',
      });
    }
    // The log keeps the expression, once for the limit.
    expect(
      logger.lines.filter((line) => line.level === 'warn' && line.message.includes('Missing')),
    ).toEqual([
      {
        level: 'warn',
        message:
          "@CountLimit on FallbackController.chain: Missing value for key expression 'query.tenant ?? headers['x-tenant'] ?? user.id': answered 400 (logged once per limit)",
      },
    ]);
  });
});

it('a chain with a syntax error fails start-up naming the class, method and template', async () => {
  @Controller()
  class BrokenChainController {
    @Get()
    @CountLimit({ key: "api:#{headers['x-api-key'] ??}", limit: 1, period: 60 })
    handle() {
      return 'ok';
    }
  }
  @Module({ imports: [RateLimiterModule.forRoot()], controllers: [BrokenChainController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await expect(app.init()).rejects.toThrow(
    "@CountLimit on BrokenChainController.handle: Invalid key template 'api:#{headers['x-api-key'] ??}': expected a name at position 29",
  );
  await app.close();
});
