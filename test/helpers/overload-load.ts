import { spawnChildScript } from './child-app';

/** One request of an open-loop run: when it was sent (ms from the start), its class, status, latency. */
export interface LoadSample {
  sentAtMs: number;
  critical: boolean;
  status: number;
  latencyMs: number;
}

export interface OpenLoopRun {
  url: string;
  rate: number;
  seconds: number;
  criticalShare?: number;
  /** A PUT to this URL at this second of the run (the downstream slowing down). */
  slowAt?: { second: number; url: string };
}

/** Runs the open-loop load generator in a process of its own and returns every request's sample. */
export function openLoop(run: OpenLoopRun): Promise<LoadSample[]> {
  const child = spawnChildScript('open-loop-load.ts', {
    URL: run.url,
    RATE: String(run.rate),
    SECONDS: String(run.seconds),
    CRITICAL_SHARE: String(run.criticalShare ?? 0.2),
    ...(run.slowAt ? { SLOW_AT_S: String(run.slowAt.second), SLOW_URL: run.slowAt.url } : {}),
  });
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load generator exited ${code}: ${errors}`));
      const rows = JSON.parse(output) as [number, number, number, number][];
      resolve(
        rows.map(([sentAtMs, critical, status, latencyMs]) => ({
          sentAtMs,
          critical: critical === 1,
          status,
          latencyMs,
        })),
      );
    }),
  );
}

/** What a stretch of a run did. */
export interface LoadSummary {
  /** Share of the critical requests answered 200. */
  criticalSuccess: number;
  /** p99 latency of the critical requests answered 200, ms. */
  criticalP99Ms: number;
  /** p99 latency of every critical request, those that failed or timed out included, ms. */
  criticalP99AnyMs: number;
  /** Requests answered 200 per second. */
  goodputPerSecond: number;
  /** Refused (503 or 429) per class. */
  refused: { critical: number; sheddable: number };
}

export function percentile(values: number[], share: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

/** The requests sent from `fromS` to `toS` (seconds into the run). */
export function summarize(samples: LoadSample[], fromS: number, toS: number): LoadSummary {
  const within = samples.filter((s) => s.sentAtMs >= fromS * 1000 && s.sentAtMs < toS * 1000);
  const critical = within.filter((s) => s.critical);
  const ok = (s: LoadSample) => s.status === 200;
  const refused = (s: LoadSample) => s.status === 503 || s.status === 429;
  return {
    criticalSuccess: critical.filter(ok).length / critical.length,
    criticalP99Ms: percentile(
      critical.filter(ok).map((s) => s.latencyMs),
      0.99,
    ),
    criticalP99AnyMs: percentile(
      critical.map((s) => s.latencyMs),
      0.99,
    ),
    goodputPerSecond: within.filter(ok).length / (toS - fromS),
    refused: {
      critical: critical.filter(refused).length,
      sheddable: within.filter((s) => !s.critical && refused(s)).length,
    },
  };
}
