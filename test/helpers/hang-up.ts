import { request as httpRequest } from 'node:http';

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends a GET and destroys the socket `afterMs` later, as a client that hangs up does.
 * Resolves once the socket is closed, with the status if a response head arrived first.
 */
export function hangUp(port: number, path: string, afterMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      status = res.statusCode;
      res.resume();
    });
    req.on('error', () => undefined);
    req.on('close', () => resolve(status));
    req.end();
    setTimeout(() => req.destroy(), afterMs);
  });
}

/** Opens a GET; `firstBytes` resolves on the first body chunk, `ended` with the status at its end. */
export function download(port: number, path: string) {
  let onFirst!: () => void;
  const firstBytes = new Promise<void>((resolve) => (onFirst = resolve));
  let request!: ReturnType<typeof httpRequest>;
  const ended = new Promise<number>((resolve, reject) => {
    request = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.on('data', () => onFirst());
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end();
  });
  ended.catch(() => undefined);
  return { firstBytes, ended, abort: () => request.destroy() };
}
