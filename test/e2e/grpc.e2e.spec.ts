import { join } from 'node:path';
import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { GrpcMethod, Transport } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  CountLimit,
  LimitType,
  RateLimitEvent,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { freePort } from '../helpers/free-port';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const PROTO = join(__dirname, '../fixtures/quotes.proto');

interface Quote {
  symbol: string;
  price: number;
}

@Controller()
class QuotesController {
  @GrpcMethod('Quotes', 'Get')
  @CountLimit({ key: 'quote:#{symbol}', limit: 2, period: 60 })
  get({ symbol }: { symbol: string }): Quote {
    return { symbol, price: 42 };
  }

  @GrpcMethod('Quotes', 'Free')
  free({ symbol }: { symbol: string }): Quote {
    return { symbol, price: 1 };
  }

  @GrpcMethod('Quotes', 'ByCaller')
  @CountLimit({ limitType: LimitType.IP, limit: 1, period: 60 })
  byCaller({ symbol }: { symbol: string }): Quote {
    return { symbol, price: 7 };
  }
}

/** The Redis of the block that uses one. */
let redis: RedisServer | undefined;

type Unary = (
  request: { symbol: string },
  callback: (error: grpc.ServiceError | null, reply?: Quote) => void,
) => void;
type QuotesClient = grpc.Client & { Get: Unary; Free: Unary; ByCaller: Unary };

function ask(method: Unary, client: QuotesClient, symbol: string) {
  return new Promise<{ error: grpc.ServiceError | null; reply?: Quote }>((resolve) =>
    method.call(client, { symbol }, (error, reply) => resolve({ error, reply })),
  );
}

describe.each<[string, () => Promise<Omit<RateLimiterModuleOptions, 'store'>>]>([
  ['memory', async () => ({})],
  ['Redis', async () => ({ redis: (redis = await startRedisServer()).url })],
])('a limited @GrpcMethod on the %s store', (_store, options) => {
  let service: INestMicroservice;
  let client: QuotesClient;
  const events: RateLimitEvent[] = [];

  beforeAll(async () => {
    const port = await freePort();
    const onDecision = (event: RateLimitEvent) => void events.push(event);
    @Module({
      imports: [RateLimiterModule.forRoot({ ...(await options()), onDecision })],
      controllers: [QuotesController],
    })
    class GrpcModule {}
    const moduleRef = await Test.createTestingModule({ imports: [GrpcModule] }).compile();
    service = moduleRef.createNestMicroservice({
      transport: Transport.GRPC,
      options: { package: 'quotes', protoPath: PROTO, url: `127.0.0.1:${port}` },
    });
    service.useLogger(false);
    await service.listen();
    const definition = protoLoader.loadSync(PROTO);
    const loaded = grpc.loadPackageDefinition(definition) as any;
    client = new loaded.quotes.Quotes(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await service?.close();
    await redis?.stop();
    redis = undefined;
  });

  it('answers RESOURCE_EXHAUSTED with the retry delay in the retry-after-ms trailer', async () => {
    expect((await ask(client.Get, client, 'ACME')).reply).toEqual({ symbol: 'ACME', price: 42 });
    expect((await ask(client.Get, client, 'ACME')).reply).toEqual({ symbol: 'ACME', price: 42 });
    const { error } = await ask(client.Get, client, 'ACME');
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error?.code).toBe(8);
    expect(error?.details).toBe('Too Many Requests');
    const [retryAfterMs] = error!.metadata.get('retry-after-ms');
    expect(Number(retryAfterMs)).toBeGreaterThan(59_000);
    expect(Number(retryAfterMs)).toBeLessThanOrEqual(60_000);
    // Another key and an unlimited method are untouched.
    expect((await ask(client.Get, client, 'INIT')).reply).toEqual({ symbol: 'INIT', price: 42 });
    expect((await ask(client.Free, client, 'ACME')).reply).toEqual({ symbol: 'ACME', price: 1 });
  });

  it("keys an IP limit by the call's peer address", async () => {
    expect((await ask(client.ByCaller, client, 'ACME')).reply).toEqual({
      symbol: 'ACME',
      price: 7,
    });
    expect((await ask(client.ByCaller, client, 'ACME')).error?.code).toBe(8);
    const keys = events
      .filter((event) => event.limit === '@CountLimit on QuotesController.byCaller')
      .map((event) => event.key);
    expect(keys).toEqual([
      'countLimit:~QuotesController.byCaller:127.0.0.1',
      'countLimit:~QuotesController.byCaller:127.0.0.1',
    ]);
  });
});
