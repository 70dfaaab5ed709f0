import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpAdapterHost } from '@nestjs/core';
import { whenServing } from '../../src/when-serving';

/** Nest's adapter host around a real Node HTTP server. */
const hostOf = (server: Server) =>
  ({ httpAdapter: { getHttpServer: () => server } }) as unknown as HttpAdapterHost;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const listen = (server: Server, port = 0) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
const close = (server: Server) =>
  new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));

describe('whenServing: start-up work that opens Redis waits for the app to serve', () => {
  const servers: Server[] = [];
  const server = () => {
    const created = createServer();
    servers.push(created);
    return created;
  };
  afterEach(() => Promise.all(servers.splice(0).map(close)));

  it('runs at once without an HTTP server, or when it already listens', async () => {
    let runs = 0;
    whenServing(undefined, () => runs++);
    const listening = server();
    await listen(listening);
    whenServing(hostOf(listening), () => runs++);
    expect(runs).toBe(2);
  });

  it('runs once, when the server starts listening', async () => {
    let runs = 0;
    const later = server();
    whenServing(hostOf(later), () => runs++, 5_000);
    expect(runs).toBe(0);
    await listen(later);
    await sleep(20);
    expect(runs).toBe(1);
  });

  it('runs after the grace for an app that never listens (init only, inject, serverless)', async () => {
    let runs = 0;
    whenServing(hostOf(server()), () => runs++, 50);
    await sleep(10);
    expect(runs).toBe(0);
    await sleep(150);
    expect(runs).toBe(1);
  });

  it('does not run while a failed listen is all there is, and runs on a listen that succeeds', async () => {
    const taken = server();
    await listen(taken);
    const port = (taken.address() as AddressInfo).port;
    let runs = 0;
    const app = server();
    whenServing(hostOf(app), () => runs++, 50);
    await expect(listen(app, port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await sleep(150);
    expect(runs).toBe(0);
    await listen(app);
    await sleep(20);
    expect(runs).toBe(1);
  });

  it('never runs once cancelled (the app closed first)', async () => {
    let runs = 0;
    const app = server();
    const cancel = whenServing(hostOf(app), () => runs++, 50);
    cancel();
    await sleep(150);
    await listen(app);
    await sleep(20);
    expect(runs).toBe(0);
  });
});
