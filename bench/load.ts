// Runs `total` decisions with `inFlight` of them pending at any time, over `keys`.

export type Decide = (key: string) => Promise<boolean>;

export interface LoadResult {
  decisions: number;
  allowed: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runLoad(
  decide: Decide,
  { total, inFlight, keys }: { total: number; inFlight: number; keys: readonly string[] },
): Promise<LoadResult> {
  const latencies = new Float64Array(total);
  let next = 0;
  let allowed = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const start = performance.now();
      if (await decide(keys[i % keys.length])) allowed++;
      latencies[i] = performance.now() - start;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  const at = (p: number) => latencies[Math.min(total - 1, Math.ceil((p / 100) * total) - 1)];
  return { decisions: total, allowed, perSecond: total / seconds, p50Ms: at(50), p99Ms: at(99) };
}
