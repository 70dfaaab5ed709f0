// autocannon ships no types: only what http-load.ts and guard-http.ts use.
declare module 'autocannon' {
  interface Result {
    duration: number;
    requests: { total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: {
    url: string;
    connections: number;
    /** Seconds to run, or else `amount` requests in all. */
    duration?: number;
    amount?: number;
    /** Requests per second, over all connections. */
    overallRate?: number;
  }): Promise<Result>;
  export = autocannon;
}
