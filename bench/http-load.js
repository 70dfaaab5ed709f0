'use strict';
// The load generator, in its own process: `node http-load.js <json options>`; sends the
// autocannon summary to the parent over IPC.
const autocannon = require('autocannon');

const options = JSON.parse(process.argv[2]);
autocannon(options, (error, result) => {
  if (error) {
    process.send({ error: String(error) }, () => process.exit(1));
    return;
  }
  process.send(
    {
      requestsPerSecond: result.requests.total / result.duration,
      requests: result.requests.total,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    },
    () => process.exit(0),
  );
});
