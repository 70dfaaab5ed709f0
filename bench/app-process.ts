// The child side of a benchmarked app that runs in a process of its own (http-app.ts,
// guard-http-app.ts): the parent forks it, reads its port, asks for its CPU time, closes it.
import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/**
 * Starts the module's app on Express, sends { port } over IPC once listening, its
 * process.cpuUsage() when sent 'cpu', and closes it and exits when sent 'close'.
 */
export async function serveOverIpc(appModule: Type<unknown>): Promise<void> {
  const app = await NestFactory.create(appModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const send = (message: unknown) => (process.send as (message: unknown) => void)(message);
  send({ port: app.getHttpServer().address().port });
  process.on('message', async (message) => {
    if (message === 'cpu') send(process.cpuUsage());
    if (message === 'close') {
      await app.close();
      process.exit(0);
    }
  });
}

/** Runs the process's main, and exits with 1 on its error, which the parent sees. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
