// A jest reporter. Runs end by themselves (no --forceExit): every test closes what it opens.
// A test that fails before its cleanup may leave a server or a socket open, and jest would
// then wait for it for ever. When some test failed, the run is ended shortly after jest has
// reported it, with the failure's exit code; a run that passed is left to exit on its own.
const GRACE_MS = 10_000;

class EndFailedRuns {
  onRunComplete(_contexts, results) {
    if (
      results.numFailedTests + results.numFailedTestSuites + results.numRuntimeErrorTestSuites ===
      0
    )
      return;
    const timer = setTimeout(() => {
      process.stderr.write(
        `A failed test left handles open: the run ends ${GRACE_MS} ms after it.\n`,
      );
      process.exit(1);
    }, GRACE_MS);
    timer.unref();
  }
}

module.exports = EndFailedRuns;
