import { UseGuards } from '@nestjs/common';
import {
  MessageBody,
  OnGatewayConnection,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import { interval, map, Observable, take } from 'rxjs';
import {
  ConcurrencyLimit,
  CountLimit,
  LimitType,
  RateLimit,
  RateLimitGuard,
  RateLimiterFactory,
} from '../../src';
import { eventually } from '../helpers/eventually';
import { handshakeParam, useGatewayOnRedis, WS_ADAPTER_NAMES } from '../helpers/gateway-on-redis';
import { ask, reply, tooMany } from '../helpers/ws-clients';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 30 permits, one back every 1024 s. */
const GENERATED = { rate: 1 / 1024, burst: 30 * 1024 };

@WebSocketGateway()
@UseGuards(RateLimitGuard) // Nest runs no global guard on gateways
class ChatGateway implements OnGatewayConnection {
  /** Authenticates the connection: the socket's user, as an app's handshake guard would set. */
  handleConnection(client: any, request?: { url?: string }) {
    const user = handshakeParam(client, request, 'user');
    if (user) client.user = { id: user };
  }

  @SubscribeMessage('ping')
  @CountLimit({ limitType: LimitType.IP, limit: 2, period: 60 })
  ping() {
    return reply('pong');
  }

  @SubscribeMessage('sms')
  @CountLimit({ key: 'sms:#{body.phone}', limit: 1, period: 60 })
  sms(@MessageBody() body: { phone: string }) {
    return reply(`sent ${body.phone}`);
  }

  @SubscribeMessage('me')
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  me() {
    return reply('me');
  }

  /** Reserves 10 permits of 30; the message says what it cost. */
  @SubscribeMessage('generate')
  @RateLimit({
    key: 'generate',
    ...GENERATED,
    permits: 10,
    settle: (_ctx, { result }) => (result as { data: { used: number } }).data.used,
  })
  generate(@MessageBody() body: { used: number }) {
    return reply({ used: body.used });
  }

  @SubscribeMessage('value')
  @ConcurrencyLimit({ key: 'value', max: 1 })
  value() {
    return reply('value');
  }

  @SubscribeMessage('promise')
  @ConcurrencyLimit({ key: 'promise', max: 1 })
  async promise() {
    await pause(150);
    return reply('promise');
  }

  @SubscribeMessage('stream')
  @ConcurrencyLimit({ key: 'stream', max: 1 })
  stream(): Observable<unknown> {
    return interval(50).pipe(
      take(3),
      map((i) => reply(`stream ${i}`)),
    );
  }
}

describe.each(WS_ADAPTER_NAMES)('WebSocket gateways on the %s adapter', (name) => {
  const gateway = useGatewayOnRedis([ChatGateway], name);
  const connect = gateway.connect;

  it('keys IP by the handshake address; the client receives the 429 and stays connected', async () => {
    const client = await connect();
    expect(await ask(client, 'ping')).toEqual(reply('pong'));
    expect(await ask(client, 'ping')).toEqual(reply('pong'));
    expect(await ask(client, 'ping')).toEqual(tooMany(60, 'ping'));
    expect(client.isOpen()).toBe(true);
    expect(await ask(client, 'sms', { phone: '+1' })).toEqual(reply('sent +1'));
    // The denied ping counted nothing.
    expect(await gateway.admin.get('countLimit:~ChatGateway.ping:127.0.0.1')).toBe('2');
  });

  it('templates see the message as body; USER is the socket user', async () => {
    const ann = await connect({ user: 'ann' });
    expect(await ask(ann, 'sms', { phone: '+2' })).toEqual(reply('sent +2'));
    expect(await ask(ann, 'sms', { phone: '+2' })).toEqual(tooMany(60, 'sms'));
    expect(await ask(ann, 'sms', { phone: '+3' })).toEqual(reply('sent +3'));
    expect(await ask(ann, 'me', { user: { id: 'bob' } })).toEqual(reply('me'));
    // The message's own `user` is ignored: the socket's user is ann, who has spent hers.
    expect(await ask(ann, 'me', { user: { id: 'bob' } })).toEqual(tooMany(60, 'me'));
    const bob = await connect({ user: 'bob' });
    expect(await ask(bob, 'me')).toEqual(reply('me'));
    expect(
      await gateway.admin.exists(
        'countLimit:~ChatGateway.me:ann',
        'countLimit:~ChatGateway.me:bob',
      ),
    ).toBe(2);
  });

  it('a concurrency slot is held until a value, a promise or a stream completes', async () => {
    const client = await connect();
    expect(await ask(client, 'value')).toEqual(reply('value'));
    expect(await ask(client, 'value')).toEqual(reply('value'));

    client.send('promise');
    client.send('promise');
    const both = [await client.next(), await client.next()];
    expect(both).toEqual([
      { event: 'exception', data: expect.objectContaining({ statusCode: 429 }) },
      reply('promise'),
    ]);
    expect(await ask(client, 'promise')).toEqual(reply('promise'));

    client.send('stream');
    expect(await client.next()).toEqual(reply('stream 0'));
    expect(await ask(client, 'stream')).toMatchObject({ event: 'exception' });
    expect([await client.next(), await client.next()]).toEqual([
      reply('stream 1'),
      reply('stream 2'),
    ]);
    await pause(50);
    expect(await gateway.admin.zcard('concurrency:stream')).toBe(0);
    expect(await ask(client, 'stream')).toEqual(reply('stream 0'));
    expect(client.isOpen()).toBe(true);
  });

  it("settle reads the handler's result: 10 reserved, 4 kept", async () => {
    const client = await connect();
    expect(await ask(client, 'generate', { used: 4 })).toEqual(reply({ used: 4 }));
    const limiter = gateway.app
      .get(RateLimiterFactory)
      .rateLimiter({ key: 'generate', ...GENERATED });
    // A gateway sends its value as it comes: the correction may land just after.
    expect(await eventually(async () => (await limiter.peek()).remaining, 26)).toBe(26);
  });
});
