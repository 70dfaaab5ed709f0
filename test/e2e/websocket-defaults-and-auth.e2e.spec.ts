import {
  CanActivate,
  ExecutionContext,
  INestApplication,
  Injectable,
  Module,
  UseGuards,
} from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { WsAdapter } from '@nestjs/platform-ws';
import { OnGatewayConnection, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { CountLimit, LimitType, RateLimitGuard, RateLimiterModule } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { socketIoClient, TestClient, wsClient } from '../helpers/ws-clients';

const reply = (data: unknown) => ({ event: 'reply', data });

/** A message-level auth guard: the socket's user, from the token its handshake carried. */
@Injectable()
class WsAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const client = context.switchToWs().getClient();
    client.user = { id: client.token };
    return true;
  }
}

@WebSocketGateway()
@UseGuards(RateLimitGuard) // Nest runs no global guard on gateways
class AccountGateway implements OnGatewayConnection {
  /** Keeps the handshake's token; the user is set by WsAuthGuard, on the first message. */
  handleConnection(client: any, request?: { url?: string }) {
    client.token =
      client.handshake?.query?.token ??
      new URL(request?.url ?? '/', 'http://localhost').searchParams.get('token');
  }

  @SubscribeMessage('open')
  open() {
    return reply('open');
  }

  /** The module binds RateLimitInterceptor here, which waits for WsAuthGuard's user. */
  @SubscribeMessage('me')
  @UseGuards(WsAuthGuard)
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  me() {
    return reply('me');
  }
}

const ADAPTERS = {
  'socket.io': { adapter: (app: INestApplication) => new IoAdapter(app), client: socketIoClient },
  ws: { adapter: (app: INestApplication) => new WsAdapter(app), client: wsClient },
};

describe.each(['socket.io', 'ws'] as const)(
  'gateway defaults and USER after auth on %s',
  (name) => {
    let redis: RedisServer;
    let admin: Redis;
    let app: INestApplication;
    let port: number;
    let client: TestClient;
    const clients: TestClient[] = [];
    const ask = async (event: string, data?: unknown, as = client) => {
      as.send(event, data);
      return as.next();
    };
    const tooMany = {
      event: 'exception',
      data: { statusCode: 429, message: 'Too Many Requests', retryAfter: 60 },
    };

    beforeAll(async () => {
      redis = await startRedisServer();
      admin = redis.client();
      @Module({
        imports: [
          RateLimiterModule.forRoot({
            redis: redis.url,
            defaults: [{ name: 'short', algorithm: 'countLimit', limit: 5, period: 60 }],
          }),
        ],
        providers: [AccountGateway],
      })
      class GatewayModule {}
      const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      app.useWebSocketAdapter(ADAPTERS[name].adapter(app));
      await app.listen(0, '127.0.0.1');
      port = app.getHttpServer().address().port;
      client = await ADAPTERS[name].client(port);
      clients.push(client);
    });
    afterAll(async () => {
      for (const open of clients) open.close();
      await app?.close();
      await redis?.stop();
    });

    it('a guarded gateway handler with no decorator gets the defaults, by client IP', async () => {
      const replies = [];
      for (let i = 0; i < 6; i++) replies.push(await ask('open'));
      expect(replies).toEqual([...Array(5).fill(reply('open')), tooMany]);
      expect(await admin.exists('countLimit:~AccountGateway.open:127.0.0.1')).toBe(1);
    });

    it('a USER limit is keyed by the user a method-level guard set', async () => {
      const connect = async (token: string) => {
        const connection = await ADAPTERS[name].client(port, { token });
        clients.push(connection);
        return connection;
      };
      const [alice, bob] = [await connect('alice'), await connect('bob')];
      const replies = [];
      for (const as of [alice, alice, bob, alice]) replies.push(await ask('me', {}, as));
      expect(replies).toEqual([reply('me'), reply('me'), reply('me'), tooMany]);
      expect(await admin.get('countLimit:~AccountGateway.me:bob')).toBe('1');
      expect(await admin.exists('countLimit:~AccountGateway.me:ip:127.0.0.1')).toBe(0);
      expect(alice.isOpen()).toBe(true);
    });
  },
);
