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
import { LimitType, RateLimitGuard, RateLimiterModule } from '../../src';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { socketIoClient, TestClient, wsClient } from '../helpers/ws-clients';

const reply = (data: unknown) => ({ event: 'reply', data });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A message-level auth guard, bound after ours: the socket's user, from its handshake token. */
@Injectable()
class WsAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const client = context.switchToWs().getClient();
    client.user = { id: client.token };
    return true;
  }
}

/** No `@UseInterceptors` anywhere: the module binds what the defaults need. */
@WebSocketGateway()
@UseGuards(RateLimitGuard, WsAuthGuard)
class DefaultsGateway implements OnGatewayConnection {
  handleConnection(client: any, request?: { url?: string }) {
    client.token =
      client.handshake?.query?.token ??
      new URL(request?.url ?? '/', 'http://localhost').searchParams.get('token');
  }

  @SubscribeMessage('me')
  me() {
    return reply('me');
  }

  @SubscribeMessage('slow')
  async slow() {
    await pause(300);
    return reply('slow');
  }
}

const ADAPTERS = {
  'socket.io': { adapter: (app: INestApplication) => new IoAdapter(app), client: socketIoClient },
  ws: { adapter: (app: INestApplication) => new WsAdapter(app), client: wsClient },
};

describe.each(['socket.io', 'ws'] as const)(
  'gateway defaults that need the after-handler phase, with no interceptor bound by the app, on %s',
  (name) => {
    let redis: RedisServer;
    let admin: Redis;
    let app: INestApplication;
    let port: number;
    const clients: TestClient[] = [];
    const connect = async (token: string) => {
      const client = await ADAPTERS[name].client(port, { token });
      clients.push(client);
      return client;
    };
    const ask = async (as: TestClient, event: string) => {
      as.send(event, {});
      return as.next();
    };
    const tooMany = (retryAfter: number) => ({
      event: 'exception',
      data: { statusCode: 429, message: 'Too Many Requests', retryAfter },
    });

    beforeAll(async () => {
      redis = await startRedisServer();
      admin = redis.client();
      @Module({
        imports: [
          RateLimiterModule.forRoot({
            redis: redis.url,
            defaults: [
              {
                name: 'perUser',
                algorithm: 'countLimit',
                limitType: LimitType.USER,
                limit: 3,
                period: 60,
              },
              { name: 'slots', algorithm: 'concurrencyLimit', limitType: LimitType.USER, max: 1 },
            ],
          }),
        ],
        providers: [DefaultsGateway],
      })
      class GatewayModule {}
      const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      app.useWebSocketAdapter(ADAPTERS[name].adapter(app));
      await app.listen(0, '127.0.0.1');
      port = app.getHttpServer().address().port;
    });
    afterAll(async () => {
      for (const open of clients) open.close();
      await app?.close();
      await redis?.stop();
    });

    it('a USER default waits for the user the app guard sets, and gives its slot back', async () => {
      const [alice, bob] = [await connect('alice'), await connect('bob')];
      const replies = [];
      for (const as of [alice, alice, bob, alice, alice]) replies.push(await ask(as, 'me'));
      expect(replies).toEqual([reply('me'), reply('me'), reply('me'), reply('me'), tooMany(60)]);
      expect(await admin.get('countLimit:~DefaultsGateway.me:alice')).toBe('3');
      expect(await admin.get('countLimit:~DefaultsGateway.me:bob')).toBe('1');
      expect(await admin.exists('countLimit:~DefaultsGateway.me:ip:127.0.0.1')).toBe(0);
      expect(await eventually(() => admin.zcard('concurrency:~DefaultsGateway.me:alice'), 0)).toBe(
        0,
      );
      expect(alice.isOpen()).toBe(true);
    });

    it('a concurrency default holds the slot while the handler runs, then frees it', async () => {
      const carol = await connect('carol');
      const slots = () => admin.zcard('concurrency:~DefaultsGateway.slow:carol');
      for (let round = 0; round < 2; round++) {
        carol.send('slow', {});
        carol.send('slow', {});
        expect([await carol.next(), await carol.next()]).toEqual([tooMany(1), reply('slow')]);
        // Given back as the handler completes, a moment after its reply left.
        expect(await eventually(slots, 0)).toBe(0);
      }
      expect(await admin.exists('concurrency:~DefaultsGateway.slow:ip:127.0.0.1')).toBe(0);
    });
  },
);
