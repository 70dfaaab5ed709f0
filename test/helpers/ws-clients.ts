import { io, Socket } from 'socket.io-client';
import WebSocket from 'ws';

export interface Message {
  event: string;
  data: any;
}

/** A real WebSocket client that queues what the server sends, to read it in order. */
export interface TestClient {
  send(event: string, data?: unknown): void;
  /** The next message from the server (socket.io events and `ws` frames alike). */
  next(): Promise<Message>;
  isOpen(): boolean;
  close(): void;
}

function queue() {
  const messages: Message[] = [];
  const waiters: ((message: Message) => void)[] = [];
  return {
    push(message: Message) {
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    },
    next(): Promise<Message> {
      const message = messages.shift();
      if (message) return Promise.resolve(message);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message within 2 s')), 2000);
        waiters.push((received) => {
          clearTimeout(timer);
          resolve(received);
        });
      });
    },
  };
}

export async function socketIoClient(port: number, query: Record<string, string> = {}) {
  const received = queue();
  const socket: Socket = io(`http://127.0.0.1:${port}`, {
    transports: ['websocket'],
    query,
    reconnection: false,
  });
  socket.onAny((event: string, data: unknown) => received.push({ event, data }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return {
    send: (event, data = {}) => void socket.emit(event, data),
    next: received.next,
    isOpen: () => socket.connected,
    close: () => void socket.disconnect(),
  } satisfies TestClient;
}

export async function wsClient(port: number, query: Record<string, string> = {}) {
  const received = queue();
  const search = new URLSearchParams(query).toString();
  const socket = new WebSocket(`ws://127.0.0.1:${port}/?${search}`);
  socket.on('message', (raw) => received.push(JSON.parse(String(raw)) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    send: (event, data = {}) => socket.send(JSON.stringify({ event, data })),
    next: received.next,
    isOpen: () => socket.readyState === WebSocket.OPEN,
    close: () => socket.close(),
  } satisfies TestClient;
}

/** What the test gateways answer: `{ event: 'reply', data }`. */
export const reply = (data: unknown): Message => ({ event: 'reply', data });

/** What a denied message of `event` gets back, on either adapter: it names the event. */
export const tooMany = (retryAfter: number, event: string): Message => ({
  event: 'exception',
  data: { statusCode: 429, message: 'Too Many Requests', retryAfter, event },
});

/** Sends one message and reads the next one from the server. */
export async function ask(client: TestClient, event: string, data?: unknown): Promise<Message> {
  client.send(event, data);
  return client.next();
}
