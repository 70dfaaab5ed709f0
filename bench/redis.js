'use strict';
// Starts a throwaway redis-server on a free loopback port, without persistence.
const { spawn, spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { track, stop } = require('./procs');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function cli(port, ...args) {
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-bench-'));
  // The data directory goes with the bench, however it ends (the server is killed by procs.js).
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = track(
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--loglevel',
          'warning',
        ],
        { stdio: 'ignore' },
      ),
    );
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      const ping = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'PING'], {
        encoding: 'utf8',
      });
      if (ping.stdout.trim() === 'PONG') {
        return {
          port,
          url: `redis://127.0.0.1:${port}`,
          cli: (...args) => cli(port, ...args),
          async stop() {
            await stop(child);
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await sleep(50);
    }
    await stop(child); // port taken meanwhile, or too slow: try another one
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('could not start redis-server');
}

module.exports = { startRedis, freePort, sleep };
