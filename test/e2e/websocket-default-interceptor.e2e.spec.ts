import { UseGuards } from '@nestjs/common';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { LimitType, RateLimitGuard } from '../../src';
import { eventually } from '../helpers/eventually';
import {
  KeepsHandshakeToken,
  useGatewayOnRedis,
  WS_ADAPTER_NAMES,
  WsAuthGuard,
} from '../helpers/gateway-on-redis';
import { ask, reply, tooMany } from '../helpers/ws-clients';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** No `@UseInterceptors` anywhere: the module binds what the defaults need. */
@WebSocketGateway()
@UseGuards(RateLimitGuard, WsAuthGuard)
class DefaultsGateway extends KeepsHandshakeToken {
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

describe.each(WS_ADAPTER_NAMES)(
  'gateway defaults that need the after-handler phase, with no interceptor bound by the app, on %s',
  (name) => {
    const gateway = useGatewayOnRedis([DefaultsGateway], name, {
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
    });
    const connect = (token: string) => gateway.connect({ token });

    it('a USER default waits for the user the app guard sets, and gives its slot back', async () => {
      const [alice, bob] = [await connect('alice'), await connect('bob')];
      const replies = [];
      for (const as of [alice, alice, bob, alice, alice]) replies.push(await ask(as, 'me'));
      expect(replies).toEqual([
        reply('me'),
        reply('me'),
        reply('me'),
        reply('me'),
        tooMany(60, 'me'),
      ]);
      expect(await gateway.admin.get('countLimit:~DefaultsGateway.me:alice')).toBe('3');
      expect(await gateway.admin.get('countLimit:~DefaultsGateway.me:bob')).toBe('1');
      expect(await gateway.admin.exists('countLimit:~DefaultsGateway.me:ip:127.0.0.1')).toBe(0);
      expect(
        await eventually(() => gateway.admin.zcard('concurrency:~DefaultsGateway.me:alice'), 0),
      ).toBe(0);
      expect(alice.isOpen()).toBe(true);
    });

    it('a concurrency default holds the slot while the handler runs, then frees it', async () => {
      const carol = await connect('carol');
      const slots = () => gateway.admin.zcard('concurrency:~DefaultsGateway.slow:carol');
      for (let round = 0; round < 2; round++) {
        carol.send('slow', {});
        carol.send('slow', {});
        expect([await carol.next(), await carol.next()]).toEqual([
          tooMany(1, 'slow'),
          reply('slow'),
        ]);
        // Given back as the handler completes, a moment after its reply left.
        expect(await eventually(slots, 0)).toBe(0);
      }
      expect(await gateway.admin.exists('concurrency:~DefaultsGateway.slow:ip:127.0.0.1')).toBe(0);
    });
  },
);
