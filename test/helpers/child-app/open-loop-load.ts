/**
 * An open-loop load generator in a process of its own: requests at a fixed arrival rate,
 * whatever the answers (a closed loop would slow down with the server and hide its queue).
 * Env: URL (the route), RATE (requests per second), SECONDS, CRITICAL_SHARE (0 to 1; the
 * others are sheddable), SLOW_AT_S and SLOW_URL (a PUT sent at that second, optional).
 * Prints one JSON line at the end: every request's [sent at ms, critical 0|1, status, ms].
 */
import { Agent, request } from 'node:http';

const url = new URL(process.env.URL!);
const rate = Number(process.env.RATE);
const seconds = Number(process.env.SECONDS);
const criticalShare = Number(process.env.CRITICAL_SHARE ?? 0.2);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const samples: [number, number, number, number][] = [];
const started = performance.now();

function send(critical: boolean, path = url.pathname, method = 'GET'): Promise<void> {
  const sentAt = performance.now();
  return new Promise((resolve) => {
    const done = (status: number) => {
      if (method === 'GET') {
        samples.push([
          Math.round(sentAt - started),
          critical ? 1 : 0,
          status,
          performance.now() - sentAt,
        ]);
      }
      resolve();
    };
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method,
        agent,
        headers: { 'x-priority': critical ? 'critical' : 'sheddable' },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', (error) => {
      if (process.env.DEBUG_LOAD) console.error(error.message);
      done(0);
    });
    req.end();
  });
}

async function main() {
  const inFlight: Promise<void>[] = [];
  const slowAtMs = process.env.SLOW_AT_S ? Number(process.env.SLOW_AT_S) * 1000 : Infinity;
  let sent = 0;
  let slowed = false;
  // Every 2 ms, send what the rate says is due by now: a late tick catches up at once.
  await new Promise<void>((finished) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - started;
      if (!slowed && elapsed >= slowAtMs) {
        slowed = true;
        void send(false, process.env.SLOW_URL, 'PUT');
      }
      const due = Math.min(rate * seconds, Math.floor((elapsed / 1000) * rate));
      for (; sent < due; sent++) {
        // Exactly criticalShare of them, spread evenly.
        const critical = Math.floor((sent + 1) * criticalShare) > Math.floor(sent * criticalShare);
        inFlight.push(send(critical));
      }
      if (sent >= rate * seconds) {
        clearInterval(tick);
        finished();
      }
    }, 2);
  });
  await Promise.all(inFlight);
  agent.destroy();
  process.stdout.write(JSON.stringify(samples) + '\n');
}

void main();
