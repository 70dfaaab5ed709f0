import { join } from 'node:path';
import { Controller, INestMicroservice, Module, UseGuards } from '@nestjs/common';
import { GrpcMethod, Transport } from '@nestjs/microservices';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { AdaptiveConcurrencyLimit, RateLimitGuard, RateLimiterModule } from '../../src';
import { freePort } from '../helpers/free-port';
import { useGatewayOnRedis, WS_ADAPTER_NAMES } from '../helpers/gateway-on-redis';
import { ask, reply } from '../helpers/ws-clients';

/** One request at a time, nothing to learn. */
const ONE = { initialLimit: 1, minLimit: 1, maxLimit: 1 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class SlowGateway {
  @SubscribeMessage('slow')
  @AdaptiveConcurrencyLimit(ONE)
  async slow() {
    await pause(300);
    return reply('slow');
  }
}

describe.each(WS_ADAPTER_NAMES)('the overload guard on WebSocket messages (%s)', (name) => {
  const gateway = useGatewayOnRedis([SlowGateway], name);

  it('refuses a message over the limit with a 503 the client receives, and frees the slot when the handler ends', async () => {
    const [first, second] = [await gateway.connect(), await gateway.connect()];
    const running = ask(first, 'slow');
    await pause(50);
    expect(await ask(second, 'slow')).toEqual({
      event: 'exception',
      data: {
        statusCode: 503,
        message: 'Service Unavailable: the server is overloaded',
        retryAfter: 1,
        event: 'slow',
      },
    });
    expect(await running).toEqual(reply('slow'));
    expect(await ask(second, 'slow')).toEqual(reply('slow'));
  });
});

interface Quote {
  symbol: string;
  price: number;
}

@Controller()
class SlowQuotes {
  @GrpcMethod('Quotes', 'Get')
  @AdaptiveConcurrencyLimit(ONE)
  async get({ symbol }: { symbol: string }): Promise<Quote> {
    await pause(300);
    return { symbol, price: 42 };
  }
}

type Unary = (
  request: { symbol: string },
  callback: (error: grpc.ServiceError | null, reply?: Quote) => void,
) => void;

describe('the overload guard on a gRPC method', () => {
  let service: INestMicroservice;
  let client: grpc.Client & { Get: Unary };
  beforeAll(async () => {
    const port = await freePort();
    const proto = join(__dirname, '../fixtures/quotes.proto');
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [SlowQuotes] })
    class GrpcModule {}
    const moduleRef = await Test.createTestingModule({ imports: [GrpcModule] }).compile();
    service = moduleRef.createNestMicroservice({
      transport: Transport.GRPC,
      options: { package: 'quotes', protoPath: proto, url: `127.0.0.1:${port}` },
    });
    service.useLogger(false);
    await service.listen();
    const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(proto)) as any;
    client = new loaded.quotes.Quotes(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await service?.close();
  });
  const get = (symbol: string) =>
    new Promise<{ error: grpc.ServiceError | null; reply?: Quote }>((resolve) =>
      client.Get({ symbol }, (error, reply) => resolve({ error, reply })),
    );

  it('answers UNAVAILABLE with the retry time in retry-after-ms, and frees the slot when the method ends', async () => {
    const running = get('ACME');
    await pause(100);
    const { error } = await get('INIT');
    expect(error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(error?.details).toBe('Service Unavailable: the server is overloaded');
    expect(error?.metadata.get('retry-after-ms')).toEqual(['1000']);
    expect((await running).reply).toEqual({ symbol: 'ACME', price: 42 });
    expect((await get('INIT')).reply).toEqual({ symbol: 'INIT', price: 42 });
  });
});
