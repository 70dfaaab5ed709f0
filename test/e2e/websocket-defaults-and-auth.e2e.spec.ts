import { UseGuards } from '@nestjs/common';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { CountLimit, LimitType, RateLimitGuard } from '../../src';
import {
  KeepsHandshakeToken,
  useGatewayOnRedis,
  WS_ADAPTER_NAMES,
  WsAuthGuard,
} from '../helpers/gateway-on-redis';
import { ask, reply, TestClient, tooMany } from '../helpers/ws-clients';

@WebSocketGateway()
@UseGuards(RateLimitGuard) // Nest runs no global guard on gateways
/** Keeps the handshake's token; the user is set by WsAuthGuard, on the first message. */
class AccountGateway extends KeepsHandshakeToken {
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

describe.each(WS_ADAPTER_NAMES)('gateway defaults and USER after auth on %s', (name) => {
  const gateway = useGatewayOnRedis([AccountGateway], name, {
    defaults: [{ name: 'short', algorithm: 'countLimit', limit: 5, period: 60 }],
  });
  let client: TestClient;

  beforeAll(async () => {
    client = await gateway.connect();
  });

  it('a guarded gateway handler with no decorator gets the defaults, by client IP', async () => {
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await ask(client, 'open'));
    expect(replies).toEqual([...Array(5).fill(reply('open')), tooMany(60, 'open')]);
    expect(await gateway.admin.exists('countLimit:~AccountGateway.open:127.0.0.1')).toBe(1);
  });

  it('a USER limit is keyed by the user a method-level guard set', async () => {
    const connect = (token: string) => gateway.connect({ token });
    const [alice, bob] = [await connect('alice'), await connect('bob')];
    const replies = [];
    for (const as of [alice, alice, bob, alice]) replies.push(await ask(as, 'me', {}));
    expect(replies).toEqual([reply('me'), reply('me'), reply('me'), tooMany(60, 'me')]);
    expect(await gateway.admin.get('countLimit:~AccountGateway.me:bob')).toBe('1');
    expect(await gateway.admin.exists('countLimit:~AccountGateway.me:ip:127.0.0.1')).toBe(0);
    expect(alice.isOpen()).toBe(true);
  });
});
