import { UseGuards } from '@nestjs/common';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { CountLimit, RateLimitGuard } from '../../../src';
import { isUnguardedGateway } from '../../../src/guard/ws-context';

class OwnLimitGuard extends RateLimitGuard {}

@WebSocketGateway()
class Unguarded {
  @SubscribeMessage('a')
  @CountLimit()
  a() {}
}

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class GuardedClass {
  @SubscribeMessage('a')
  @CountLimit()
  a() {}
}

@WebSocketGateway()
class GuardedMethod {
  @SubscribeMessage('a')
  @UseGuards(OwnLimitGuard)
  @CountLimit()
  a() {}
}

class NotAGateway {
  @CountLimit()
  a() {}
}

describe('limits on a gateway without RateLimitGuard are found at start-up', () => {
  it.each([
    [Unguarded, true],
    [GuardedClass, false],
    [GuardedMethod, false],
    [NotAGateway, false],
  ] as const)('%p: %p', (gateway, unguarded) => {
    expect(isUnguardedGateway(gateway, gateway.prototype.a)).toBe(unguarded);
  });
});
