import { join } from 'node:path';
import { Controller, Get, INestMicroservice, Module } from '@nestjs/common';
import {
  ClientProxy,
  ClientProxyFactory,
  GrpcMethod,
  MessagePattern,
  Transport,
} from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { firstValueFrom } from 'rxjs';
import { CountLimit, LimitType, RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { freePort } from '../helpers/free-port';
import { initApp } from '../helpers/init-app';

const PROTO = join(__dirname, '../fixtures/quotes.proto');
const WARNING = /read the user id from the caller's own message/;

@Controller()
class AccountHandlers {
  @MessagePattern('transfer')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  transfer() {
    return 'done';
  }

  @GrpcMethod('Quotes', 'Get')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  get({ symbol }: { symbol: string }) {
    return { symbol, price: 42 };
  }

  @MessagePattern('ping')
  @CountLimit({ limit: 100, period: 60 })
  ping() {
    return 'pong';
  }
}

/** A TCP microservice of AccountHandlers with the module's options; its client; its log. */
async function startTcp(options: RateLimiterModuleOptions) {
  const logger = new CaptureLogger();
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers: [AccountHandlers] })
  class RpcModule {}
  const port = await freePort();
  const moduleRef = await Test.createTestingModule({ imports: [RpcModule] }).compile();
  const service: INestMicroservice = moduleRef.createNestMicroservice({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
    logger,
  });
  await service.listen();
  const client: ClientProxy = ClientProxyFactory.create({
    transport: Transport.TCP,
    options: { host: '127.0.0.1', port },
  });
  return { service, client, logger };
}

/** How many of six transfers, each claiming another user id u0..u5, pass. */
async function transfersPassing(client: ClientProxy): Promise<number> {
  let passed = 0;
  for (let i = 0; i < 6; i++) {
    const message = { user: { id: `u${i}` }, amount: 10 };
    await firstValueFrom(client.send('transfer', message)).then(
      () => passed++,
      () => undefined,
    );
  }
  return passed;
}

describe('a USER limit on a microservice handler', () => {
  it("warns at start-up, naming the handlers, that the caller's message picks its key", async () => {
    const { service, client, logger } = await startTcp({});
    try {
      const warnings = logger.lines.filter((line) => WARNING.test(line.message));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warn' });
      expect(warnings[0].message).toContain('AccountHandlers.transfer, AccountHandlers.get');
      expect(warnings[0].message).not.toContain('AccountHandlers.ping');
      expect(warnings[0].message).toContain('resolveUser');
      // What it warns of: every caller that claims another id passes.
      expect(await transfersPassing(client)).toBe(6);
    } finally {
      client.close();
      await service.close();
    }
  });

  it('says nothing when the app resolves the user itself, and then limits it', async () => {
    // The user the app verified (here one caller, whatever its messages claim).
    const { service, client, logger } = await startTcp({ resolveUser: () => 'verified-caller' });
    try {
      expect(logger.count('warn', WARNING)).toBe(0);
      expect(await transfersPassing(client)).toBe(2);
    } finally {
      client.close();
      await service.close();
    }
  });

  it('is a gRPC method too, and not an HTTP route, whose user the app sets', async () => {
    @Controller()
    class Profile {
      @Get('profile')
      @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
      profile() {
        return 'me';
      }
    }
    @Module({ imports: [RateLimiterModule.forRoot({})], controllers: [Profile] })
    class HttpModule {}
    const httpLogger = new CaptureLogger();
    const app = await initApp(HttpModule, httpLogger);
    await app.close();
    expect(httpLogger.count('warn', WARNING)).toBe(0);

    @Controller()
    class Quotes {
      @GrpcMethod('Quotes', 'Get')
      @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
      get() {
        return { symbol: 'A', price: 1 };
      }
    }
    @Module({ imports: [RateLimiterModule.forRoot({})], controllers: [Quotes] })
    class GrpcModule {}
    const logger = new CaptureLogger();
    const moduleRef = await Test.createTestingModule({ imports: [GrpcModule] }).compile();
    const service = moduleRef.createNestMicroservice({
      transport: Transport.GRPC,
      options: { package: 'quotes', protoPath: PROTO, url: `127.0.0.1:${await freePort()}` },
      logger,
    });
    await service.listen();
    await service.close();
    expect(logger.lines.filter((line) => WARNING.test(line.message))).toEqual([
      { level: 'warn', message: expect.stringContaining('(Quotes.get)') },
    ]);
  });
});
