import { ChildProcess } from 'node:child_process';
import { io } from 'socket.io-client';
import WebSocket from 'ws';
import { spawnChildScript } from './child-app';
import type { WsAdapterName } from './gateway-on-redis';

/** How a connection attempt ended: a socket the gateway answers, or the server's refusal. */
export type Attempt =
  | { connected: true; close(): void }
  | {
      connected: false;
      /** socket.io: `connect_error`'s message and data. */
      message?: string;
      data?: unknown;
      /** ws: the close code and reason. */
      code?: number;
      reason?: string;
    };

/**
 * Connects a socket.io client; connected once the server accepted it, refused on
 * `connect_error`.
 */
function attemptSocketIo(
  port: number,
  query: Record<string, string>,
  auth?: Record<string, string>,
): Promise<Attempt> {
  const socket = io(`http://127.0.0.1:${port}`, {
    transports: ['websocket'],
    query,
    auth,
    reconnection: false,
  });
  return new Promise((resolve) => {
    socket.once('connect', () =>
      resolve({ connected: true, close: () => void socket.disconnect() }),
    );
    socket.once('connect_error', (error: Error & { data?: unknown }) => {
      socket.close();
      resolve({ connected: false, message: error.message, data: error.data });
    });
  });
}

/**
 * Connects a ws client. The upgrade always succeeds; a connection is accepted once the
 * gateway answers a `ping`, refused when the server closes it first.
 */
function attemptWs(port: number, query: Record<string, string>): Promise<Attempt> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/?${new URLSearchParams(query)}`);
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ event: 'ping', data: {} })));
    socket.on('message', (raw) => {
      if ((JSON.parse(String(raw)) as { data?: unknown }).data !== 'pong') return;
      resolve({ connected: true, close: () => socket.close() });
    });
    socket.once('close', (code, reason) =>
      resolve({ connected: false, code, reason: String(reason) }),
    );
  });
}

/**
 * One connection attempt with the adapter's client; the gateway must answer `ping` with
 * `pong`. `auth` is socket.io's handshake auth.
 */
export function attempt(
  adapter: WsAdapterName,
  port: number,
  query: Record<string, string> = {},
  auth?: Record<string, string>,
): Promise<Attempt> {
  return adapter === 'ws' ? attemptWs(port, query) : attemptSocketIo(port, query, auth);
}

/**
 * A client in a process of its own, holding an accepted socket: killing the process makes
 * it vanish without a goodbye (the kernel closes its TCP connection).
 */
export function holdSocketInChild(
  adapter: WsAdapterName,
  port: number,
  query: Record<string, string>,
): Promise<ChildProcess> {
  const child = spawnChildScript('hold-socket.ts', {
    ADAPTER: adapter,
    PORT: String(port),
    QUERY: JSON.stringify(query),
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('CONNECTED')) resolve(child);
      else if (output.includes('REFUSED')) reject(new Error(`the child was refused: ${output}`));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', () => reject(new Error(`the child exited: ${output}`)));
  });
}
