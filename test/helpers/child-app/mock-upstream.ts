/**
 * An API that limits its callers, in a process of its own: a token bucket of `RATE` calls a
 * second holding `CAPACITY` (env, default 100 and 10) answers 429 when empty. Every arrival is
 * logged (time, status, the `x-tenant` header). Prints `PORT <n>` once it listens.
 *
 *   GET  /call                   one call, answered after `LATENCY_MS` (default 5)
 *   POST /control?rate=50        the limit changes, silently (nothing in the answers says so)
 *   POST /control?headers=x      answers carry X-RateLimit-Limit/-Remaining/-Reset ('ietf':
 *                                RateLimit and RateLimit-Policy; 'none': nothing)
 *   POST /control?retryAfter=5   the next call is answered 429 with Retry-After: 5
 *   POST /control?reset=1        as started: the limit, a full bucket, the headers, no log
 *   GET  /ping                   answers at once, outside the limit (callers open connections)
 *   GET  /log?since=<ms>         the arrivals since then: [[epoch ms, status, tenant], ...]
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

const startRate = Number(process.env.RATE ?? 100);
const capacity = Number(process.env.CAPACITY ?? 10);
const latencyMs = Number(process.env.LATENCY_MS ?? 5);
type HeaderMode = 'none' | 'x' | 'ietf';
const startHeaders = (process.env.HEADERS ?? 'none') as HeaderMode;
let [rate, tokens, refilledAt] = [startRate, capacity, performance.now()];
let headers = startHeaders;
let retryAfterNext: string | undefined;
let log: Array<[number, number, string]> = [];

function reset(): void {
  [rate, tokens, refilledAt] = [startRate, capacity, performance.now()];
  headers = startHeaders;
  retryAfterNext = undefined;
  log = [];
}

function take(): boolean {
  const now = performance.now();
  tokens = Math.min(capacity, tokens + ((now - refilledAt) / 1000) * rate);
  refilledAt = now;
  if (tokens < 1) return false;
  tokens -= 1;
  return true;
}

function stateHeaders(response: ServerResponse): void {
  const remaining = Math.floor(tokens);
  const reset = ((capacity - tokens) / rate).toFixed(3);
  if (headers === 'x') {
    response.setHeader('X-RateLimit-Limit', String(rate));
    response.setHeader('X-RateLimit-Remaining', String(remaining));
    response.setHeader('X-RateLimit-Reset', reset);
  } else if (headers === 'ietf') {
    response.setHeader('RateLimit-Policy', `"calls";q=${rate};w=1`);
    response.setHeader('RateLimit', `"calls";r=${remaining};t=${reset}`);
  }
}

function call(request: IncomingMessage, response: ServerResponse): void {
  let status: number;
  if (retryAfterNext !== undefined) {
    status = 429;
    response.setHeader('Retry-After', retryAfterNext);
    retryAfterNext = undefined;
  } else {
    status = take() ? 200 : 429;
    stateHeaders(response);
  }
  log.push([Date.now(), status, String(request.headers['x-tenant'] ?? '')]);
  setTimeout(() => {
    response.statusCode = status;
    response.end(status === 200 ? 'ok' : 'slow down');
  }, latencyMs);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://upstream');
  if (url.pathname === '/call') return call(request, response);
  if (url.pathname === '/ping') return response.end('pong');
  if (url.pathname === '/control') {
    if (url.searchParams.get('reset')) reset();
    const newRate = url.searchParams.get('rate');
    if (newRate) {
      take();
      rate = Number(newRate);
    }
    const mode = url.searchParams.get('headers');
    if (mode) headers = mode as never;
    retryAfterNext = url.searchParams.get('retryAfter') ?? retryAfterNext;
    return response.end('ok');
  }
  if (url.pathname === '/log') {
    const since = Number(url.searchParams.get('since') ?? 0);
    response.setHeader('content-type', 'application/json');
    return response.end(JSON.stringify(log.filter(([at]) => at >= since)));
  }
  response.statusCode = 404;
  response.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`PORT ${typeof address === 'object' && address ? address.port : 0}`);
});
