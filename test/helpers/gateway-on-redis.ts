import {
  CanActivate,
  ExecutionContext,
  INestApplication,
  Injectable,
  Module,
} from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { WsAdapter } from '@nestjs/platform-ws';
import { OnGatewayConnection } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { PATIENT_STORE_TIMEOUT_MS } from './app-on-redis';
import { RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { RedisServer, startRedisServer } from './redis-server';
import { socketIoClient, TestClient, wsClient } from './ws-clients';

/** Each WebSocket adapter Nest ships, with a client that speaks its protocol. */
export const WS_ADAPTERS = {
  'socket.io': { adapter: (app: INestApplication) => new IoAdapter(app), client: socketIoClient },
  ws: { adapter: (app: INestApplication) => new WsAdapter(app), client: wsClient },
};
export type WsAdapterName = keyof typeof WS_ADAPTERS;
export const WS_ADAPTER_NAMES = Object.keys(WS_ADAPTERS) as WsAdapterName[];

/** A message-level auth guard: the socket's user, from the token its handshake carried. */
@Injectable()
export class WsAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const client = context.switchToWs().getClient();
    client.user = { id: client.token };
    return true;
  }
}

/** A query parameter of the handshake: socket.io parses it, `ws` leaves it in the URL. */
export function handshakeParam(
  client: any,
  request: { url?: string } | undefined,
  name: string,
): string | null {
  return (
    client.handshake?.query?.[name] ??
    new URL(request?.url ?? '/', 'http://localhost').searchParams.get(name)
  );
}

/** One redis-server and one app serving gateways on it, for a describe block. */
export interface GatewayOnRedis {
  redis: RedisServer;
  /** A client of the test's own, for inspecting keys. */
  admin: Redis;
  app: INestApplication;
  port: number;
  /** A new client of the app, closed by `afterAll`. */
  connect(query?: Record<string, string>): Promise<TestClient>;
}

/** Registers the hooks that start a redis-server and the gateways on it, and stop all. */
export function useGatewayOnRedis(
  gateways: any[],
  adapter: WsAdapterName,
  options: Omit<RateLimiterModuleOptions, 'redis'> = {},
): GatewayOnRedis {
  const clients: TestClient[] = [];
  const env = {
    connect: async (query: Record<string, string> = {}) => {
      const client = await WS_ADAPTERS[adapter].client(env.port, query);
      clients.push(client);
      return client;
    },
  } as GatewayOnRedis;
  beforeAll(async () => {
    env.redis = await startRedisServer();
    env.admin = env.redis.client();
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          storeTimeout: PATIENT_STORE_TIMEOUT_MS,
          ...options,
          redis: env.redis.url,
        }),
      ],
      providers: gateways,
    })
    class GatewayModule {}
    const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
    env.app = moduleRef.createNestApplication({ logger: false });
    env.app.useWebSocketAdapter(WS_ADAPTERS[adapter].adapter(env.app));
    await env.app.listen(0, '127.0.0.1');
    env.port = env.app.getHttpServer().address().port;
  });
  afterAll(async () => {
    for (const open of clients) open.close();
    await env.app?.close();
    await env.redis?.stop();
  });
  return env;
}

/** A gateway that keeps its handshake's `token` on the socket, for WsAuthGuard's user. */
export abstract class KeepsHandshakeToken implements OnGatewayConnection {
  handleConnection(client: any, request?: { url?: string }) {
    client.token = handshakeParam(client, request, 'token');
  }
}
