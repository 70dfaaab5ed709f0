/**
 * A Nest app that calls the mock upstream through an upstream budget, in a process of its
 * own. A service's method carries `@UpstreamLimit('mock', { tenant })`; `CONCURRENCY` callers
 * call it in a loop for each run. Env: REDIS_URL (absent:
 * memory store), UPSTREAM_URL, RATE, CAPACITY, TIMEOUT (s), TENANT, WEIGHT, LEARN ('false'
 * turns learning off), NO_LIMITER ('true': plain fetch), BOTTLENECK ('true': Bottleneck's
 * Redis clustering at the same budget instead, for the bench). Prints `READY`; each line
 * `GO <epoch ms> <duration ms>` on its stdin is a run (from that time, for that long, then
 * `RESULT {"status": {...}, "busy": n}`); the line `EXIT` (or the end of stdin) ends it.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Bottleneck from 'bottleneck';
import { RateLimiterModule, UpstreamBusyError, UpstreamLimit } from '../../../src';

const env = process.env;
const upstreamUrl = `${env.UPSTREAM_URL}/call`;
const tenant = env.TENANT ?? '';
const weight = Number(env.WEIGHT ?? 1);

@Injectable()
class MockClient {
  @UpstreamLimit('mock', { tenant: () => tenant, weight })
  async limited(): Promise<Response> {
    return this.plain();
  }

  async plain(): Promise<Response> {
    const response = await fetch(upstreamUrl, { headers: { 'x-tenant': tenant } });
    await response.arrayBuffer();
    return response;
  }
}

@Module({
  imports: [
    RateLimiterModule.forRoot({
      ...(env.REDIS_URL ? { redis: env.REDIS_URL } : {}),
      metrics: false,
      upstreams: [
        {
          name: 'mock',
          rate: Number(env.RATE ?? 100),
          capacity: Number(env.CAPACITY ?? 10),
          timeout: Number(env.TIMEOUT ?? 30),
          learn: env.LEARN !== 'false',
        },
      ],
    }),
  ],
  providers: [MockClient],
})
class CallerModule {}

/** Bottleneck's clustering on the same Redis: a reservoir of CAPACITY refilled at RATE. */
function bottleneck(): Bottleneck {
  const rate = Number(env.RATE ?? 100);
  const capacity = Number(env.CAPACITY ?? 10);
  const { hostname, port } = new URL(env.REDIS_URL!);
  const connection = new Bottleneck.IORedisConnection({
    clientOptions: { host: hostname, port: Number(port) },
  });
  return new Bottleneck({
    id: 'mock',
    connection,
    reservoir: capacity,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: 1000 / rate,
    reservoirIncreaseMaximum: capacity,
  });
}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(CallerModule, { logger: false });
  const client = app.get(MockClient);
  const peer = env.BOTTLENECK === 'true' ? bottleneck() : undefined;
  const callOnce = (): Promise<Response> => {
    if (peer) return peer.schedule(() => client.plain());
    return env.NO_LIMITER === 'true' ? client.plain() : client.limited();
  };
  const concurrency = Number(env.CONCURRENCY ?? 8);
  const run = async (startAt: number, durationMs: number) => {
    const status: Record<string, number> = {};
    let busy = 0;
    // Connections open before the start: the first calls are not held up by handshakes.
    await Promise.all(
      Array.from({ length: concurrency }, async () =>
        (await fetch(`${env.UPSTREAM_URL}/ping`)).text(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
    const endAt = startAt + durationMs;
    const loop = async () => {
      while (Date.now() < endAt) {
        try {
          const response = await callOnce();
          status[response.status] = (status[response.status] ?? 0) + 1;
        } catch (error) {
          if (!(error instanceof UpstreamBusyError)) throw error;
          busy++;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    console.log(`RESULT ${JSON.stringify({ status, busy })}`);
  };
  const end = async () => {
    await peer?.disconnect(false);
    await app.close();
    process.exit(0);
  };
  console.log('READY');
  let input = '';
  let runs = Promise.resolve();
  process.stdin.on('data', (chunk: Buffer) => {
    input += chunk.toString();
    let newline: number;
    while ((newline = input.indexOf('\n')) >= 0) {
      const line = input.slice(0, newline).trim();
      input = input.slice(newline + 1);
      const go = /^GO (\d+) (\d+)$/.exec(line);
      if (go) runs = runs.then(() => run(Number(go[1]), Number(go[2])));
      else if (line === 'EXIT') runs = runs.then(end);
    }
  });
  process.stdin.on('end', () => void runs.then(end));
}

void main();
