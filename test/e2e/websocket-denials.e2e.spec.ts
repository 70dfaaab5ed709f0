import { UseGuards } from '@nestjs/common';
import { MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { io } from 'socket.io-client';
import { CountLimit, RateLimitGuard } from '../../src';
import { useGatewayOnRedis, WS_ADAPTER_NAMES } from '../helpers/gateway-on-redis';
import { Message } from '../helpers/ws-clients';

const LIMIT = 3;
const SENT = 10;

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class SayGateway {
  @SubscribeMessage('say')
  @CountLimit({ key: 'say', limit: LIMIT, period: 60 })
  say(@MessageBody() body: { n: number }) {
    return { event: 'said', data: body.n };
  }

  /** Answered through socket.io's acknowledgement: a reply without an event. */
  @SubscribeMessage('ask')
  @CountLimit({ key: 'ask', limit: LIMIT, period: 60 })
  ask(@MessageBody() body: { n: number }) {
    return { answer: body.n };
  }
}

/** A denial of `event`, as every adapter sends it. */
const refused = (event: string) => ({
  event: 'exception',
  data: { statusCode: 429, message: 'Too Many Requests', retryAfter: 60, event },
});

describe.each(WS_ADAPTER_NAMES)('WebSocket denials on %s', (adapter) => {
  const env = useGatewayOnRedis([SayGateway], adapter);

  it('name the refused event and come in the order of the messages they answer', async () => {
    const client = await env.connect();
    for (let n = 0; n < SENT; n++) client.send('say', { n });
    const received: Message[] = [];
    for (let n = 0; n < SENT; n++) received.push(await client.next());
    expect(received).toEqual([
      ...Array.from({ length: LIMIT }, (_, n) => ({ event: 'said', data: n })),
      ...Array.from({ length: SENT - LIMIT }, () => refused('say')),
    ]);
    client.close();
  });
});

describe('a socket.io denial, when the client asked for an acknowledgement', () => {
  const env = useGatewayOnRedis([SayGateway], 'socket.io');

  it('is the answer of the acknowledgement, in order', async () => {
    const socket = io(`http://127.0.0.1:${env.port}`, {
      transports: ['websocket'],
      reconnection: false,
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const answers: unknown[] = [];
    const acknowledged = Array.from(
      { length: SENT },
      (_, n) =>
        new Promise<void>((resolve) =>
          socket.emit('ask', { n }, (answer: unknown) => {
            answers.push(answer);
            resolve();
          }),
        ),
    );
    // A denial left unanswered would leave its acknowledgement waiting: 3 s at most.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(acknowledged),
      new Promise((resolve) => (timer = setTimeout(resolve, 3000))),
    ]);
    clearTimeout(timer);
    socket.disconnect();
    expect(answers).toEqual([
      ...Array.from({ length: LIMIT }, (_, n) => ({ answer: n })),
      ...Array.from({ length: SENT - LIMIT }, () => refused('ask').data),
    ]);
  });
});
