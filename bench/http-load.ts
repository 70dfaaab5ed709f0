// The HTTP load generator: wrk when it is on PATH (C, in its own process, it takes far less of
// the 2 shared cores than autocannon, so the app under test sets the pace), autocannon
// otherwise.
import { execFile, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';

export interface HttpRun {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx responses, socket errors and timeouts. */
  failures: number;
}

export interface LoadOptions {
  connections: number;
  duration: number;
}

export function loadTool(): string {
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  // `wrk -v` prints "wrk <version> …" and exits with 1.
  const version = /^wrk (\S+)/.exec(probe.stdout ?? '')?.[1];
  return probe.error || !version ? 'autocannon' : `wrk ${version}`;
}

const PER_MS: Record<string, number> = { us: 1000, ms: 1, s: 1 / 1000, m: 1 / 60_000 };
const TIME = String.raw`([\d.]+)(us|ms|s|m)`;

export function parseWrk(text: string): HttpRun {
  const time = (pattern: string) => {
    const match = new RegExp(pattern, 'm').exec(text);
    if (!match) throw new Error(`wrk output without ${pattern}:\n${text}`);
    return Number(match[1]) / PER_MS[match[2]];
  };
  const requests = Number(/(\d+) requests in /.exec(text)?.[1]);
  const seconds = time(String.raw`\d+ requests in ${TIME}`) / 1000;
  // wrk prints these two lines only when their counts are not zero.
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = sockets ? sockets.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requestsPerSecond: requests / seconds,
    requests,
    p50Ms: time(String.raw`^\s*50%\s+${TIME}\s*$`),
    p99Ms: time(String.raw`^\s*99%\s+${TIME}\s*$`),
    failures: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) + socketErrors,
  };
}

function wrk(url: string, { connections, duration }: LoadOptions): Promise<HttpRun> {
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', url];
  return new Promise((resolve, reject) =>
    execFile('wrk', args, (error, stdout, stderr) =>
      error ? reject(new Error(`wrk failed: ${stderr}${stdout}`)) : resolve(parseWrk(stdout)),
    ),
  );
}

async function viaAutocannon(url: string, options: LoadOptions): Promise<HttpRun> {
  const result = await autocannon({ url, ...options });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

export function runHttpLoad(tool: string, url: string, options: LoadOptions): Promise<HttpRun> {
  return tool.startsWith('wrk') ? wrk(url, options) : viaAutocannon(url, options);
}
