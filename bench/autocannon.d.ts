// autocannon ships no types: only what http-load.ts uses.
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
    duration: number;
  }): Promise<Result>;
  export = autocannon;
}
