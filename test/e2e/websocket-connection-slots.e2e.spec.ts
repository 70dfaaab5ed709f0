import { INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  OnGatewayConnection,
  OnGatewayDisconnect,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import {
  ConcurrencyLimit,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { Attempt, attempt } from '../helpers/connection-attempts';
import { ChildApp, startChildApp } from '../helpers/child-app';
import { eventually } from '../helpers/eventually';
import { WS_ADAPTER_NAMES, WS_ADAPTERS, WsAdapterName } from '../helpers/gateway-on-redis';
import { watchLateness } from '../helpers/lateness';
import { TestClient } from '../helpers/ws-clients';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The slot's lease, short so the test runs in seconds: long enough that its renewals (a
 * third of it apart) land in time on a busy machine, and the test checks that they did.
 */
const LEASE_SECONDS = 4;
const MAX = 3;

/** Three sockets open at once, each slot held 4 s unless renewed; it counts what is open. */
@WebSocketGateway()
class SocketsGateway implements OnGatewayConnection, OnGatewayDisconnect {
  open = 0;
  mostOpen = 0;

  @ConcurrencyLimit({ key: 'sockets', max: MAX, lease: LEASE_SECONDS })
  handleConnection(client: { accepted?: boolean }) {
    client.accepted = true;
    this.mostOpen = Math.max(this.mostOpen, ++this.open);
  }

  handleDisconnect(client: { accepted?: boolean }) {
    if (client.accepted) this.open--;
  }

  @SubscribeMessage('ping')
  ping() {
    return { event: 'reply', data: 'pong' };
  }
}

type Store = 'memory' | 'Redis';

/** An app of this process serving SocketsGateway, and its port. */
async function startGatewayApp(
  adapter: WsAdapterName,
  options: RateLimiterModuleOptions,
): Promise<[INestApplication, number]> {
  @Module({ imports: [RateLimiterModule.forRoot(options)], providers: [SocketsGateway] })
  class GatewayModule {}
  const moduleRef = await Test.createTestingModule({ imports: [GatewayModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useWebSocketAdapter(WS_ADAPTERS[adapter].adapter(app));
  await app.listen(0, '127.0.0.1');
  return [app, app.getHttpServer().address().port];
}

const CASES = WS_ADAPTER_NAMES.flatMap((adapter) =>
  (['memory', 'Redis'] as Store[]).map((store) => [adapter, store] as const),
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const connected = (attempts: Attempt[]) => attempts.filter((each) => each.connected);
const closeAll = (attempts: Attempt[]) => {
  for (const each of attempts) if (each.connected) each.close();
};

/**
 * Tries a new socket every 250 ms for `ms`: how many were accepted (each closed at once, so
 * the count is of moments when a slot was free).
 */
async function acceptedWhileFull(adapter: WsAdapterName, port: number, ms: number) {
  let accepted = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const next = await attempt(adapter, port);
    if (next.connected) {
      accepted++;
      next.close();
    }
    await sleep(250);
  }
  return accepted;
}

/** What a case's app did while its slots were full. */
interface Held {
  /** The sockets that took the slots. */
  open: Attempt[];
  /** How many more were accepted meanwhile. */
  extra: number;
  /** How late this process's timers ran meanwhile. */
  latenessMs: number;
}

/** One case's app and Redis, and its holding of the full slots (under way from the start). */
interface SlotsCase {
  app: INestApplication;
  port: number;
  redis?: RedisServer;
  held: Promise<Held>;
}

/** Fills the slots, then tries for more until half a lease past the first lease. */
async function holdWhileFull(adapter: WsAdapterName, port: number): Promise<Held> {
  const lateness = watchLateness();
  const open = await Promise.all(Array.from({ length: MAX }, () => attempt(adapter, port)));
  // Half a lease past the first: a slot that was not renewed would have come free by then.
  const extra = await acceptedWhileFull(adapter, port, 1.5 * LEASE_SECONDS * 1000);
  lateness.stop();
  return { open, extra, latenessMs: lateness.maxMs() };
}

const caseName = (adapter: WsAdapterName, store: Store) => `${adapter} on ${store}`;
const cases = new Map<string, SlotsCase>();

// Each case holds its slots for 1.5 leases on an app and a store of its own: they wait at
// once rather than one after another.
beforeAll(async () => {
  await Promise.all(
    CASES.map(async ([adapter, store]) => {
      const redis = store === 'Redis' ? await startRedisServer() : undefined;
      const [app, port] = await startGatewayApp(adapter, redis ? { redis: redis.url } : {});
      const held = holdWhileFull(adapter, port);
      held.catch(() => undefined); // awaited by the case's test
      cases.set(caseName(adapter, store), { app, port, redis, held });
    }),
  );
});

describe.each(CASES)(
  'a connection slot lives as long as its socket, %s on %s',
  (adapter, store) => {
    const slots = () => cases.get(caseName(adapter, store))!;
    afterAll(async () => {
      await slots()?.app.close();
      await slots()?.redis?.stop();
    });

    it('keeps the slot of an open socket past its lease, and gives it back on close', async () => {
      const { app, port, held } = slots();
      const gateway = app.get(SocketsGateway);
      const { open, extra, latenessMs } = await held;
      expect(connected(open)).toHaveLength(MAX);
      // The renewals run a third of a lease apart: two of three may be late and the slot holds.
      expect(latenessMs).toBeLessThan((LEASE_SECONDS * 1000 * 2) / 3);
      expect(extra).toBe(0);
      expect(gateway.mostOpen).toBe(MAX);
      // One socket leaves: its slot comes back, and only its.
      (open[0] as { close(): void }).close();
      const again = await eventually(async () => {
        const next = await attempt(adapter, port);
        if (!next.connected) return false;
        open[0] = next;
        return true;
      }, true);
      expect(again).toBe(true);
      expect((await attempt(adapter, port)).connected).toBe(false);
      expect(gateway.mostOpen).toBe(MAX);
      closeAll(open);
      expect(await eventually(async () => gateway.open, 0)).toBe(0);
    }, 40_000);

    if (store === 'Redis') {
      it('closes the sockets whose renewal the store refuses (the key blocked)', async () => {
        const { app, port } = slots();
        const limiter = app
          .get(RateLimiterFactory)
          .concurrencyLimiter({ key: 'sockets', max: MAX, lease: LEASE_SECONDS });
        const clients: TestClient[] = [];
        for (let i = 0; i < MAX; i++) clients.push(await WS_ADAPTERS[adapter].client(port));
        expect(clients.map((client) => client.isOpen())).toEqual([true, true, true]);
        await limiter.block(60);
        // The next renewal, a third of a lease later, is refused: the sockets go.
        const open = async () => clients.filter((client) => client.isOpen()).length;
        expect(await eventually(open, 0, LEASE_SECONDS * 1000)).toBe(0);
        expect(await eventually(async () => app.get(SocketsGateway).open, 0)).toBe(0);
        await limiter.reset();
      }, 20_000);
    }
  },
);

/** One adapter's app process about to die, the server beside it, and their Redis. */
interface DyingApp {
  redis?: RedisServer;
  child?: ChildApp;
  survivor?: INestApplication;
  survivorPort: number;
  sockets: Attempt[];
}

/** Each adapter's app, and its run of the test: under way at once for both adapters. */
const dying = new Map<WsAdapterName, { started: Promise<DyingApp>; ran: Promise<void> }>();

async function startDyingApp(adapter: WsAdapterName, app: DyingApp): Promise<DyingApp> {
  app.redis = await startRedisServer();
  const env = { REDIS_URL: app.redis.url, ADAPTER: adapter, MAX: String(MAX) };
  // Loading an app in a child takes half a minute on a busy machine.
  app.child = await startChildApp(
    'gateway-app.ts',
    { ...env, LEASE: String(LEASE_SECONDS) },
    150_000,
  );
  // Another server of the same limit, which the dead one's slots must not shut out.
  [app.survivor, app.survivorPort] = await startGatewayApp(adapter, { redis: app.redis.url });
  return app;
}

async function holdThenDie(adapter: WsAdapterName, app: DyingApp): Promise<void> {
  const { redis, child, survivorPort, sockets } = app as Required<DyingApp>;
  const admin = redis.client();
  for (let i = 0; i < MAX; i++) sockets.push(await attempt(adapter, child.port));
  expect(connected(sockets)).toHaveLength(MAX);
  // The app renews its slots: none comes free past their lease, on either server.
  expect(await acceptedWhileFull(adapter, child.port, 1.7 * LEASE_SECONDS * 1000)).toBe(0);
  expect((await attempt(adapter, survivorPort)).connected).toBe(false);
  const key = (await admin.keys('*sockets*'))[0];
  expect(await admin.zcard(key)).toBe(MAX);
  // Killed: no close, no release. Its slots are held by nobody until their lease ends.
  child.process.kill('SIGKILL');
  const ttlMs = await admin.pttl(key);
  expect(ttlMs).toBeGreaterThan(0);
  expect(ttlMs).toBeLessThanOrEqual(LEASE_SECONDS * 1000);
  // Gone within the lease of the last renewal (the store's clock is Redis's).
  const waitMs = LEASE_SECONDS * 1000 + 5000;
  expect(await eventually(async () => admin.exists(key), 0, waitMs)).toBe(0);
  const attempts = await Promise.all(
    Array.from({ length: MAX + 2 }, () => attempt(adapter, survivorPort)),
  );
  sockets.push(...attempts);
  expect(connected(attempts)).toHaveLength(MAX);
  admin.disconnect();
}

/**
 * Starts both adapters' apps on the first call, and their runs once both have loaded (a
 * loading app would take the CPU from the other's renewals).
 */
function startDyingApps(): void {
  if (dying.size) return;
  const apps = WS_ADAPTER_NAMES.map((adapter) => {
    const app: DyingApp = { survivorPort: 0, sockets: [] };
    const started = startDyingApp(adapter, app).catch(async (error) => {
      await stopDyingApp(app);
      throw error;
    });
    return { adapter, app, started };
  });
  const allStarted = Promise.all(apps.map(({ started }) => started));
  for (const { adapter, app, started } of apps) {
    const ran = allStarted.then(() => holdThenDie(adapter, app));
    // Each is awaited by its adapter's hook or test.
    started.catch(() => undefined);
    ran.catch(() => undefined);
    dying.set(adapter, { started, ran });
  }
}

async function stopDyingApp(app: DyingApp): Promise<void> {
  closeAll(app.sockets);
  await app.child?.stop();
  await app.survivor?.close();
  await app.redis?.stop();
}

describe.each(WS_ADAPTER_NAMES)(
  'the slots of an app process that dies come back, %s on Redis',
  (adapter) => {
    beforeAll(async () => {
      startDyingApps();
      await dying.get(adapter)!.started;
    }, 180_000);
    afterAll(async () => {
      const app = await dying.get(adapter)?.started.catch(() => undefined);
      await dying.get(adapter)?.ran.catch(() => undefined);
      if (app) await stopDyingApp(app);
    });

    it('holds them while the app lives, and frees them within a lease of a SIGKILL', async () => {
      await dying.get(adapter)!.ran;
    }, 60_000);
  },
);
