/** What an upstream tells the metrics. */
export interface UpstreamEvents {
  started?(upstream: string, waitedMs: number): void;
  busy?(upstream: string): void;
  paused?(upstream: string, forMs: number): void;
  learned?(upstream: string): void;
  learnedRate?(upstream: string, rate: number): void;
}
