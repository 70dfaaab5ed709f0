import { join } from 'node:path';
import {
  Controller,
  Get,
  INestApplication,
  INestMicroservice,
  Module,
  UseGuards,
} from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import {
  ClientProxy,
  ClientProxyFactory,
  GrpcMethod,
  MessagePattern,
  Transport,
} from '@nestjs/microservices';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { firstValueFrom } from 'rxjs';
import { CountLimit, RateLimitGuard, RateLimiterModule } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { freePort } from '../helpers/free-port';
import { WS_ADAPTER_NAMES, WS_ADAPTERS } from '../helpers/gateway-on-redis';
import { graphqlModuleFor } from '../helpers/graphql-app';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { ask } from '../helpers/ws-clients';

/** Every request past the first of each limit is denied. */
const SENT = 6;
const DENIED = SENT - 1;

/** Keeps every level, debug and verbose included, with the stack Nest passes an error. */
class EveryLevelLogger extends CaptureLogger {
  debug(message: unknown) {
    this.lines.push({ level: 'debug', message: String(message) });
  }
  verbose(message: unknown) {
    this.lines.push({ level: 'verbose', message: String(message) });
  }
  fatal(message: unknown) {
    this.lines.push({ level: 'fatal', message: String(message) });
  }
  /** The lines above debug: what a production log keeps. */
  loud() {
    return this.lines.filter((line) => !['debug', 'verbose'].includes(line.level));
  }
}

@Controller()
class HttpController {
  @Get('limited')
  @CountLimit({ limit: 1, period: 60 })
  limited() {
    return 'ok';
  }
}

@Resolver()
class LimitedResolver {
  @Query(() => String)
  @CountLimit({ limit: 1, period: 60 })
  limited() {
    return 'ok';
  }
}

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class LimitedGateway {
  @SubscribeMessage('limited')
  @CountLimit({ limit: 1, period: 60 })
  limited() {
    return { event: 'reply', data: 'ok' };
  }
}

@Controller()
class RpcHandlers {
  @MessagePattern('limited')
  @CountLimit({ limit: 1, period: 60 })
  limited() {
    return 'ok';
  }

  @GrpcMethod('Quotes', 'Get')
  @CountLimit({ limit: 1, period: 60 })
  get({ symbol }: { symbol: string }) {
    return { symbol, price: 42 };
  }
}

const ERRORS_LOGGED = 'no line above debug for any denial';

describe.each(PLATFORMS)('denials on %s are not logged above debug', (platform) => {
  const logger = new EveryLevelLogger();
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({}), graphqlModuleFor(platform)],
      controllers: [HttpController],
      providers: [LimitedResolver],
    })
    class HttpModule {}
    ({ app, port } = await startApp(HttpModule, platform, logger));
  });
  afterAll(() => app?.close());

  it(`HTTP: ${ERRORS_LOGGED}`, async () => {
    const before = logger.loud().length;
    const statuses = [];
    for (let i = 0; i < SENT; i++) statuses.push((await call(port, { path: '/limited' })).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(DENIED);
    expect(logger.loud().slice(before)).toEqual([]);
  });

  it(`GraphQL (${platform === 'express' ? 'Apollo' : 'Mercurius'}): ${ERRORS_LOGGED}`, async () => {
    const before = logger.loud().length;
    const codes = [];
    for (let i = 0; i < SENT; i++) {
      const reply = await call(port, {
        method: 'POST',
        path: '/graphql',
        json: { query: '{ limited }' },
      });
      codes.push((reply.body as any).errors?.[0]?.extensions?.statusCode ?? 200);
    }
    expect(codes.filter((code) => code === 429)).toHaveLength(DENIED);
    expect(logger.loud().slice(before)).toEqual([]);
  });
});

describe.each(WS_ADAPTER_NAMES)(
  'denials on WebSocket (%s) are not logged above debug',
  (adapter) => {
    const logger = new EveryLevelLogger();
    let app: INestApplication;

    beforeAll(async () => {
      @Module({ imports: [RateLimiterModule.forRoot({})], providers: [LimitedGateway] })
      class GatewayModule {}
      const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
      app = moduleRef.createNestApplication({ logger });
      app.useWebSocketAdapter(WS_ADAPTERS[adapter].adapter(app));
      await app.listen(0, '127.0.0.1');
    });
    afterAll(() => app?.close());

    it(ERRORS_LOGGED, async () => {
      const client = await WS_ADAPTERS[adapter].client(app.getHttpServer().address().port);
      const before = logger.loud().length;
      const answers = [];
      for (let i = 0; i < SENT; i++) answers.push((await ask(client, 'limited')).event);
      client.close();
      expect(answers.filter((event) => event === 'exception')).toHaveLength(DENIED);
      expect(logger.loud().slice(before)).toEqual([]);
    });
  },
);

describe('denials on microservices are not logged above debug', () => {
  const logger = new EveryLevelLogger();
  let tcp: INestMicroservice;
  let grpcService: INestMicroservice;
  let tcpClient: ClientProxy;
  let grpcClient: grpc.Client & { Get: Function };

  beforeAll(async () => {
    @Module({ imports: [RateLimiterModule.forRoot({})], controllers: [RpcHandlers] })
    class RpcModule {}
    const [tcpPort, grpcPort] = [await freePort(), await freePort()];
    const proto = join(__dirname, '../fixtures/quotes.proto');
    const tcpRef = await Test.createTestingModule({ imports: [RpcModule] }).compile();
    tcp = tcpRef.createNestMicroservice({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: tcpPort },
      logger,
    });
    const grpcRef = await Test.createTestingModule({ imports: [RpcModule] }).compile();
    grpcService = grpcRef.createNestMicroservice({
      transport: Transport.GRPC,
      options: { package: 'quotes', protoPath: proto, url: `127.0.0.1:${grpcPort}` },
      logger,
    });
    await Promise.all([tcp.listen(), grpcService.listen()]);
    tcpClient = ClientProxyFactory.create({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port: tcpPort },
    });
    const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(proto)) as any;
    grpcClient = new loaded.quotes.Quotes(
      `127.0.0.1:${grpcPort}`,
      grpc.credentials.createInsecure(),
    );
  });
  afterAll(async () => {
    tcpClient?.close();
    grpcClient?.close();
    await tcp?.close();
    await grpcService?.close();
  });

  it(`TCP: ${ERRORS_LOGGED}`, async () => {
    const before = logger.loud().length;
    const outcomes = [];
    for (let i = 0; i < SENT; i++) {
      outcomes.push(
        await firstValueFrom(tcpClient.send('limited', {})).then(
          () => 200,
          (error: { statusCode?: number }) => error.statusCode,
        ),
      );
    }
    expect(outcomes.filter((status) => status === 429)).toHaveLength(DENIED);
    expect(logger.loud().slice(before)).toEqual([]);
  });

  it(`gRPC: ${ERRORS_LOGGED}`, async () => {
    const before = logger.loud().length;
    const codes = [];
    for (let i = 0; i < SENT; i++) {
      codes.push(
        await new Promise<number>((resolve) =>
          grpcClient.Get({ symbol: 'A' }, (error: grpc.ServiceError | null) =>
            resolve(error?.code ?? 0),
          ),
        ),
      );
    }
    expect(codes.filter((code) => code === grpc.status.RESOURCE_EXHAUSTED)).toHaveLength(DENIED);
    expect(logger.loud().slice(before)).toEqual([]);
  });
});
