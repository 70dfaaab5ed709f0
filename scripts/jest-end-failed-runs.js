// A jest reporter. Runs end by themselves (no --forceExit): every test closes what it opens.
// A test that fails before its cleanup may leave a server or a socket open, and jest would
// then wait for it for ever. When some test failed, the run is ended shortly after jest has
// reported it, with the failure's exit code. A run that passed but is still alive after the
// grace names what it left open (so the leak can be fixed) and ends with success: its
// results are final, and CI must not wait out its own time limit on a forgotten handle.
// The grace is 10 s unless the reporter's options set `graceMs`.
const GRACE_MS = 10_000;

function describeHandle(handle) {
  const kind = handle?.constructor?.name ?? typeof handle;
  if (kind === 'ChildProcess') return `child process ${handle.pid}: ${handle.spawnargs.join(' ')}`;
  if (kind === 'Socket' || kind === 'TLSSocket') {
    const remote = handle.remotePort ? `${handle.remoteAddress}:${handle.remotePort}` : 'none';
    return `${kind} local port ${handle.localPort ?? '-'} → ${remote}`;
  }
  if (kind === 'Server') return `server listening on ${JSON.stringify(handle.address())}`;
  return kind;
}

function describeOpenHandles() {
  const handles = process._getActiveHandles?.() ?? [];
  const described = handles
    .filter((handle) => handle !== process.stdout && handle !== process.stderr)
    .filter((handle) => typeof handle.hasRef !== 'function' || handle.hasRef())
    .map(describeHandle);
  // Timers and pending requests are not handles: Node lists them by kind only.
  return [...described, `resources by kind: ${process.getActiveResourcesInfo().join(', ')}`];
}

class EndFailedRuns {
  constructor(_globalConfig, options = {}) {
    this.graceMs = options.graceMs ?? GRACE_MS;
  }

  onRunComplete(_contexts, results) {
    const graceMs = this.graceMs;
    const failed =
      results.numFailedTests + results.numFailedTestSuites + results.numRuntimeErrorTestSuites > 0;
    const timer = setTimeout(() => {
      if (failed) {
        process.stderr.write(
          `A failed test left handles open: the run ends ${graceMs} ms after it.\n`,
        );
        process.exit(1);
      }
      const open = describeOpenHandles();
      process.stderr.write(
        `Every test passed, but the run was still alive ${graceMs} ms after it, held by:\n` +
          open.map((line) => `  - ${line}\n`).join('') +
          'It ends now, with success.\n',
      );
      process.exit(0);
    }, graceMs);
    timer.unref();
  }
}

module.exports = EndFailedRuns;
