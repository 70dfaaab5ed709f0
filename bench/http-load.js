'use strict';
// The HTTP load generator, always in a process of its own: wrk when it is on PATH,
// autocannon otherwise. wrk is C and takes far less of the 2 shared cores than
// autocannon, so the app under test, not the load generator, sets the pace.
// `node http-load.js <json options>` is the autocannon child: it sends its summary over IPC.
const { fork, spawnSync } = require('node:child_process');
const { accessSync, constants } = require('node:fs');
const { delimiter, join } = require('node:path');
const { track, stop, reply, capture } = require('./procs');

function onPath(name) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** { name, version } of the load generator this machine runs. */
function loadTool() {
  if (onPath('wrk')) {
    // `wrk -v` prints "wrk <version> [epoll] Copyright …" and exits with 1.
    const banner = spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout;
    return { name: 'wrk', version: /^wrk (\S+)/.exec(banner)?.[1] ?? 'unknown' };
  }
  return { name: 'autocannon', version: require('autocannon/package.json').version };
}

// wrk prints times as <number><unit>; the divisor turns them into ms without float noise.
const PER_MS = { us: 1000, ms: 1, s: 1 / 1000, m: 1 / 60_000, h: 1 / 3_600_000 };
const TIME = String.raw`([\d.]+)(us|ms|s|m|h)`;

function parseWrk(text) {
  const time = (pattern) => {
    const match = new RegExp(pattern, 'm').exec(text);
    if (!match) throw new Error(`wrk output without ${pattern}:\n${text}`);
    return Number(match[1]) / PER_MS[match[2]];
  };
  const requests = Number(/(\d+) requests in /.exec(text)?.[1]);
  const seconds = time(String.raw`\d+ requests in ${TIME}`) / 1000;
  // The two lines below are printed only when their counts are not zero.
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
    .exec(text)
    ?.slice(1)
    .map(Number) ?? [0, 0, 0, 0];
  return {
    requestsPerSecond: requests / seconds,
    requests,
    p50Ms: time(String.raw`^\s*50%\s+${TIME}\s*$`),
    p99Ms: time(String.raw`^\s*99%\s+${TIME}\s*$`),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    errors: sockets[0] + sockets[1] + sockets[2],
    timeouts: sockets[3],
  };
}

async function wrk(url, { connections, duration }) {
  const args = ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', url];
  const { code, out, err } = await capture('wrk', args);
  if (code !== 0) throw new Error(`wrk ${args.join(' ')} failed (${code}): ${err || out}`);
  return parseWrk(out);
}

async function autocannon(url, { connections, duration, pipelining }) {
  const options = { url, connections, duration, pipelining };
  const child = track(
    fork(__filename, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  try {
    return await reply(child, 'autocannon');
  } finally {
    await stop(child);
  }
}

/**
 * One run against `url`: { requestsPerSecond, requests, p50Ms, p99Ms, non2xx, errors,
 * timeouts }, whichever tool `tool` names.
 */
function runHttpLoad(tool, url, options) {
  return tool.name === 'wrk' ? wrk(url, options) : autocannon(url, options);
}

if (require.main === module) {
  require('autocannon')(JSON.parse(process.argv[2]), (error, result) => {
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
}

module.exports = { loadTool, runHttpLoad, parseWrk };
