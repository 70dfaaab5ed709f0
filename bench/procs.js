'use strict';
// Every child process the bench starts is registered here and killed when the bench
// exits, normally or not (error, Ctrl-C, SIGTERM).
const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function killAll(signal = 'SIGKILL') {
  for (const child of children) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
  children.clear();
}

process.on('exit', () => killAll());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** Resolves when the child exits (at once if it already has). */
function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', resolve));
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function stop(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/** The child's next IPC message; rejects if it exits first or the message carries `error`. */
function reply(child, what) {
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`${what} exited with ${code} before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      if (message.error) reject(new Error(`${what}: ${message.error}`));
      else resolve(message);
    });
  });
}

/** Runs a tracked command to its end: { code, out, err }; rejects only if it cannot start. */
function capture(command, args) {
  const { spawn } = require('node:child_process');
  return new Promise((resolve, reject) => {
    const child = track(spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

module.exports = { track, killAll, stop, exited, reply, capture };
