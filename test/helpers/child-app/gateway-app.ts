/**
 * A gateway app in a process of its own, its handshakes limited to MAX sockets open at once
 * (key 'sockets', slots of LEASE seconds) on REDIS_URL, on ADAPTER ('socket.io' or 'ws').
 * Its gateway answers `ping` with `pong` (connection-attempts.ts). Prints `PORT <n>` once
 * it listens; a test kills it to show that the slots it held come back.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OnGatewayConnection, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { ConcurrencyLimit, RateLimiterModule } from '../../../src';
import { WS_ADAPTERS, WsAdapterName } from '../gateway-on-redis';

const max = Number(process.env.MAX ?? 3);
const lease = Number(process.env.LEASE ?? 60);

@WebSocketGateway()
class SocketsGateway implements OnGatewayConnection {
  @ConcurrencyLimit({ key: 'sockets', max, lease })
  handleConnection() {}

  @SubscribeMessage('ping')
  ping() {
    return { event: 'reply', data: 'pong' };
  }
}

@Module({
  imports: [RateLimiterModule.forRoot({ redis: process.env.REDIS_URL })],
  providers: [SocketsGateway],
})
class GatewayAppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(GatewayAppModule, { logger: ['error'] });
  app.useWebSocketAdapter(WS_ADAPTERS[process.env.ADAPTER as WsAdapterName].adapter(app));
  await app.listen(0, '127.0.0.1');
  process.stdout.write(`PORT ${app.getHttpServer().address().port}\n`);
}

void main();
