// The built app (dist/main.js) as `npm run start:prod` runs it, on the Node that runs this
// script: two processes on one Redis (REDIS_URL) share its limit, and one without REDIS_URL
// limits in memory. Exits non-zero, saying what differed, when an answer is not the expected.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import * as imported from 'nestjs-limiter';
import * as importedTesting from 'nestjs-limiter/testing';

function start(env) {
  // A variable set to undefined is left out: an app without REDIS_URL limits in memory.
  const merged = Object.entries({ ...process.env, PORT: '0', ...env });
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: Object.fromEntries(merged.filter(([, value]) => value !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port in 120 s:\n${output}`)), 120_000);
    const read = (chunk) => {
      output += chunk;
      const match = /^PORT (\d+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  port.catch(() => {}); // awaited below; a second failure is not reported twice
  return { child, port, output: () => output };
}

async function status(port) {
  return (await fetch(`http://127.0.0.1:${port}/hello`)).status;
}

async function stop(app) {
  if (app.child.exitCode !== null) return;
  app.child.kill('SIGTERM');
  await once(app.child, 'exit');
}

const failures = [];
function expectEqual(what, actual, expected) {
  const ok = JSON.stringify(actual) === JSON.stringify(expected);
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}: ${JSON.stringify(actual)}`);
  if (!ok) failures.push(`${what}: expected ${JSON.stringify(expected)}`);
}

// One build serves import and require: an ES module and a CommonJS one in the same process
// get the same classes, so the guard's metadata and the store token are one.
const require = createRequire(import.meta.url);
expectEqual(
  'import and require give one RateLimiterModule, LimiterStore and ManualClock',
  [
    imported.RateLimiterModule === require('nestjs-limiter').RateLimiterModule,
    imported.LimiterStore === require('nestjs-limiter').LimiterStore,
    importedTesting.ManualClock === require('nestjs-limiter/testing').ManualClock,
  ],
  [true, true, true],
);

const prefix = `run-${process.pid}-${Date.now()}:`;
const a = start({ REDIS_URL: process.env.REDIS_URL, KEY_PREFIX: prefix });
const b = start({ REDIS_URL: process.env.REDIS_URL, KEY_PREFIX: prefix });
const memory = start({ REDIS_URL: undefined, KEY_PREFIX: prefix });
try {
  if (!process.env.REDIS_URL) throw new Error('REDIS_URL is not set');
  const [portA, portB, portMemory] = await Promise.all([a.port, b.port, memory.port]);
  expectEqual(
    'on Redis, one server then the other',
    [await status(portA), await status(portB)],
    [200, 429],
  );
  expectEqual('in memory, twice', [await status(portMemory), await status(portMemory)], [200, 429]);
  expectEqual(
    'the in-memory app warned that its limits are per process',
    /in memory|in-memory/i.test(memory.output()),
    true,
  );
} finally {
  await Promise.all([stop(a), stop(b), stop(memory)]);
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`node ${process.version}: the ESM app ran on Redis and in memory`);
