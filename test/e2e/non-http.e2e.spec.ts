import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ClientProxy, ClientProxyFactory, MessagePattern, Transport } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { firstValueFrom } from 'rxjs';
import { ConcurrencyLimit, CountLimit, RateLimitGuard, RateLimiterModule } from '../../src';
import { freePort } from '../helpers/free-port';

/** Holds every 'export' until the test lets them finish, so two sent at once overlap however late either arrives. */
let releaseExports: () => void = () => undefined;
const exportsReleased = new Promise<void>((resolve) => (releaseExports = resolve));

@Controller()
class SmsHandlers {
  @MessagePattern('sms')
  @CountLimit({ key: 'sms:#{phone}', limit: 1, period: 60 })
  send(data: { phone: string }) {
    return { sent: data.phone };
  }

  @MessagePattern('export')
  @ConcurrencyLimit({ key: 'export', max: 1 })
  async export(n: number) {
    await exportsReleased;
    return n * 2;
  }

  @MessagePattern('ping')
  @CountLimit({ limit: 2, period: 60 })
  ping() {
    return 'pong';
  }
}

@Module({ imports: [RateLimiterModule.forRoot({})], controllers: [SmsHandlers] })
class MicroserviceModule {}

describe('non-HTTP contexts', () => {
  let service: INestMicroservice;
  let client: ClientProxy;

  beforeAll(async () => {
    const port = await freePort();
    const moduleRef = await Test.createTestingModule({ imports: [MicroserviceModule] }).compile();
    service = moduleRef.createNestMicroservice({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port },
    });
    service.useLogger(false);
    await service.listen();
    client = ClientProxyFactory.create({
      transport: Transport.TCP,
      options: { host: '127.0.0.1', port },
    });
  });
  afterAll(async () => {
    client.close();
    await service.close();
  });

  const send = (pattern: string, data: unknown) => firstValueFrom(client.send(pattern, data));

  it('limits RPC messages by the same key templates, with the 429 body and retryAfterMs as the RPC error', async () => {
    expect(await send('sms', { phone: '+1' })).toEqual({ sent: '+1' });
    const denied = await send('sms', { phone: '+1' }).catch((error: unknown) => error);
    expect(denied).toEqual({
      statusCode: 429,
      message: 'Too Many Requests',
      retryAfter: 60,
      retryAfterMs: expect.any(Number),
    });
    // The delay in milliseconds, where RPC has no Retry-After header: the window's rest.
    expect((denied as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(59_000);
    expect((denied as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(await send('sms', { phone: '+2' })).toEqual({ sent: '+2' });
    await expect(send('sms', {})).rejects.toMatchObject({
      statusCode: 400,
      message: 'Missing a value this request is rate-limited by',
    });
  });

  it('limits a METHOD key on RPC', async () => {
    expect([await send('ping', {}), await send('ping', {})]).toEqual(['pong', 'pong']);
    await expect(send('ping', {})).rejects.toMatchObject({ statusCode: 429 });
  });

  it('gives a concurrency slot back after an RPC handler whose payload is a primitive', async () => {
    const sent = [send('export', 1), send('export', 2)];
    // The one that holds the slot waits for the release; the other is refused meanwhile.
    await Promise.race(sent.map((call) => call.catch(() => undefined)));
    releaseExports();
    const both = await Promise.allSettled(sent);
    expect(both.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((result) => result.status === 'rejected')).toMatchObject({
      reason: { statusCode: 429 },
    });
    // Sequential calls each find the slot free again.
    expect([await send('export', 3), await send('export', 4)]).toEqual([6, 8]);
  });

  it('never throws a TypeError on a WebSocket context without a request shape', async () => {
    const guard = service.get(RateLimitGuard);
    const handler = SmsHandlers.prototype.ping;
    const wsContext = (data: unknown) => {
      const host = new ExecutionContextHost([undefined, data], SmsHandlers, handler);
      host.setType('ws');
      return host;
    };
    // The METHOD limit's 2 were spent by the RPC test: a third is a 429 (as a WsException,
    // since @nestjs/websockets is installed), not a crash.
    const thrown = await Promise.resolve(guard.canActivate(wsContext(undefined))).then(
      () => undefined,
      (error: { getError?: () => unknown }) => error,
    );
    expect(thrown?.getError?.()).toMatchObject({ statusCode: 429 });
  });
});
