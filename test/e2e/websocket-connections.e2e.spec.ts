import { ChildProcess } from 'node:child_process';
import { INestApplication, LoggerService, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  OnGatewayConnection,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import WebSocket from 'ws';
import {
  ConcurrencyLimit,
  CountLimit,
  LimitType,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { Attempt, attempt, holdSocketInChild } from '../helpers/connection-attempts';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { WS_ADAPTER_NAMES, WS_ADAPTERS, WsAdapterName } from '../helpers/gateway-on-redis';
import { RedisServer, startRedisServer, stopProcess } from '../helpers/redis-server';

/** What the clients ask to know they were accepted (connection-attempts.ts). */
abstract class AnswersPing {
  @SubscribeMessage('ping')
  ping() {
    return { event: 'reply', data: 'pong' };
  }
}

/** Three handshakes a minute per client IP. */
@WebSocketGateway()
class LobbyGateway extends AnswersPing implements OnGatewayConnection {
  accepted = 0;

  @CountLimit({ limitType: LimitType.IP, limit: 3, period: 60 })
  handleConnection() {
    this.accepted++;
  }
}

/** Two sockets open at once per room, the room read from the handshake's query. */
@WebSocketGateway()
class RoomsGateway extends AnswersPing implements OnGatewayConnection {
  @ConcurrencyLimit({ key: 'rooms:#{query.room}', max: 2 })
  handleConnection() {}
}

/**
 * One handshake a minute per user, the user set by the app's own socket.io middleware from
 * the handshake's auth (it runs before the limit).
 */
@WebSocketGateway()
class AccountGateway extends AnswersPing implements OnGatewayConnection, OnGatewayInit {
  afterInit(server: { use(middleware: Function): void }) {
    server.use((socket: any, next: () => void) => {
      socket.user = { id: socket.handshake.auth.token };
      next();
    });
  }

  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  handleConnection() {}
}

type Store = 'memory' | 'Redis';

/** One app serving a gateway on the adapter and the store, for a describe block. */
function useGateway(
  gateway: Function,
  adapter: WsAdapterName,
  store: Store,
  logger: LoggerService | false = false,
) {
  const env = { port: 0 } as { app: INestApplication; port: number; redis?: RedisServer };
  beforeAll(async () => {
    let options: RateLimiterModuleOptions = {};
    if (store === 'Redis') {
      env.redis = await startRedisServer();
      options = { redis: env.redis.url };
    }
    @Module({ imports: [RateLimiterModule.forRoot(options)], providers: [gateway as never] })
    class GatewayModule {}
    const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
    env.app = moduleRef.createNestApplication({ logger });
    env.app.useWebSocketAdapter(WS_ADAPTERS[adapter].adapter(env.app));
    await env.app.listen(0, '127.0.0.1');
    env.port = env.app.getHttpServer().address().port;
  });
  afterAll(async () => {
    await env.app?.close();
    await env.redis?.stop();
  });
  return env;
}

const connected = (attempts: Attempt[]) => attempts.filter((each) => each.connected);
const closeAll = (attempts: Attempt[]) => {
  for (const each of attempts) if (each.connected) each.close();
};

/** Whether a new socket is accepted within 2 s (a slot that comes back a moment later). */
function eventuallyConnects(adapter: WsAdapterName, port: number, query: Record<string, string>) {
  return eventually(async () => {
    const next = await attempt(adapter, port, query);
    if (next.connected) next.close();
    return next.connected;
  }, true);
}

/** What a refused client sees, on each adapter. */
function refusal(adapter: WsAdapterName, body: Record<string, unknown>) {
  return adapter === 'ws'
    ? { connected: false, code: 1013, reason: JSON.stringify(body) }
    : { connected: false, message: body.message, data: body };
}

const CASES = WS_ADAPTER_NAMES.flatMap((adapter) =>
  (['memory', 'Redis'] as Store[]).map((store) => [adapter, store] as const),
);

describe.each(CASES)('limits on handleConnection, %s on the %s store', (adapter, store) => {
  describe('@CountLimit: handshakes per period', () => {
    const logger = new CaptureLogger();
    const env = useGateway(LobbyGateway, adapter, store, logger);

    it('accepts exactly the limit of handshakes fired at once and refuses the rest', async () => {
      const attempts = await Promise.all(
        Array.from({ length: 5 }, () => attempt(adapter, env.port)),
      );
      expect(connected(attempts)).toHaveLength(3);
      const refused = attempts.filter((each) => !each.connected);
      expect(refused).toEqual([
        refusal(adapter, { statusCode: 429, message: 'Too Many Requests', retryAfter: 60 }),
        refusal(adapter, { statusCode: 429, message: 'Too Many Requests', retryAfter: 60 }),
      ]);
      // The gateway's own handleConnection ran for the accepted sockets only.
      expect(env.app.get(LobbyGateway).accepted).toBe(3);
      // No guard is needed there: nothing warns that the limit is not enforced.
      expect(logger.count('warn', /LobbyGateway\.handleConnection/)).toBe(0);
      closeAll(attempts);
    });
  });

  describe('@ConcurrencyLimit: sockets open at once', () => {
    const env = useGateway(RoomsGateway, adapter, store);
    const children: ChildProcess[] = [];
    afterAll(async () => {
      for (const child of children) await stopProcess(child, 'SIGKILL');
    });

    it('refuses a socket over the limit, and gives the slot back on disconnect', async () => {
      const room = { room: 'a' };
      const open = await Promise.all(
        Array.from({ length: 4 }, () => attempt(adapter, env.port, room)),
      );
      expect(connected(open)).toHaveLength(2);
      expect(open.filter((each) => !each.connected)).toHaveLength(2);
      expect(open.find((each) => !each.connected)).toMatchObject(
        adapter === 'ws'
          ? { code: 1013, reason: expect.stringContaining('"statusCode":429') }
          : { message: 'Too Many Requests', data: { statusCode: 429 } },
      );
      // Another room has slots of its own.
      const other = await attempt(adapter, env.port, { room: 'b' });
      expect(other.connected).toBe(true);
      // One socket of room a leaves: its slot comes back.
      (connected(open)[0] as { close(): void }).close();
      expect(await eventuallyConnects(adapter, env.port, room)).toBe(true);
      closeAll([...open, other]);
    });

    it('gives the slot back when a client vanishes without closing', async () => {
      const room = { room: 'vanishing' };
      // A process of its own (20 s for the test: it takes a while to start on a busy machine).
      const child = await holdSocketInChild(adapter, env.port, room);
      children.push(child);
      const mine = await attempt(adapter, env.port, room);
      expect(mine.connected).toBe(true);
      expect((await attempt(adapter, env.port, room)).connected).toBe(false);
      // The process dies: no close frame, no disconnect packet, its TCP connection just ends.
      await stopProcess(child, 'SIGKILL');
      expect(await eventuallyConnects(adapter, env.port, room)).toBe(true);
      closeAll([mine]);
    }, 20_000);
  });
});

/** What a ws client reads until the server closes its socket, and the close code. */
function framesUntilClose(port: number): Promise<{ frames: unknown[]; code: number }> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  const frames: unknown[] = [];
  socket.on('message', (raw) => frames.push(JSON.parse(String(raw))));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', (code) => resolve({ frames, code }));
  });
}

describe('a refused ws connection', () => {
  const env = useGateway(LobbyGateway, 'ws', 'memory');

  // No exception filter runs on a connection: the module sends the denial, whichever of
  // Nest's filters (NestJS 12's sends to ws sockets, 10's and 11's do not) handles messages.
  it('reads the denial exactly once before the close', async () => {
    const accepted = await Promise.all(Array.from({ length: 3 }, () => attempt('ws', env.port)));
    expect(connected(accepted)).toHaveLength(3);
    const body = { statusCode: 429, message: 'Too Many Requests', retryAfter: 60 };
    expect(await framesUntilClose(env.port)).toEqual({
      frames: [{ event: 'exception', data: body }],
      code: 1013,
    });
    closeAll(accepted);
  });
});

describe.each(['memory', 'Redis'] as Store[])(
  'a USER limit on handleConnection, socket.io on the %s store',
  (store) => {
    const env = useGateway(AccountGateway, 'socket.io', store);

    it("keys handshakes by the user the app's middleware read from the handshake's auth", async () => {
      const [ann, annAgain, bob] = [
        await attempt('socket.io', env.port, {}, { token: 'ann' }),
        await attempt('socket.io', env.port, {}, { token: 'ann' }),
        await attempt('socket.io', env.port, {}, { token: 'bob' }),
      ];
      expect([ann.connected, annAgain.connected, bob.connected]).toEqual([true, false, true]);
      expect(annAgain).toEqual(
        refusal('socket.io', { statusCode: 429, message: 'Too Many Requests', retryAfter: 60 }),
      );
      closeAll([ann, bob]);
    });
  },
);
