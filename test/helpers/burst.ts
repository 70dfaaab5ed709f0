import { connect } from 'node:net';

/**
 * Opens `count` raw sockets at once, each sending one GET for `path`, and counts the
 * responses by status (0: no status line, the socket failed or closed first). Raw sockets:
 * no client agent queues them, so they all reach the server together.
 */
export async function burst(
  port: number,
  path: string,
  count: number,
): Promise<Record<number, number>> {
  const statuses = await Promise.all(
    Array.from(
      { length: count },
      () => new Promise<number>((resolve) => getStatus(port, path, resolve)),
    ),
  );
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

function getStatus(port: number, path: string, resolve: (status: number) => void): void {
  let head = '';
  let settled = false;
  const done = (status: number) => {
    if (settled) return;
    settled = true;
    socket.destroy();
    resolve(status);
  };
  const socket = connect({ port, host: '127.0.0.1' }, () => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    head += chunk;
    const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
    if (match) done(Number(match[1]));
  });
  socket.on('error', () => done(0));
  socket.on('close', () => done(0));
}
