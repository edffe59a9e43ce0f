// Loaded with --import by every package's test script (STYLE.md: process warnings and unhandled
// rejections fail a run). The test runner already fails on unhandled rejections; this turns any
// process warning (deprecations, MaxListenersExceeded, experimental features) into a failure too.
process.on('warning', (warning) => {
  // The test runner itself is not a warning we can act on.
  if (
    warning.name === 'ExperimentalWarning' &&
    /test runner|Type Stripping|import attributes/i.test(warning.message)
  )
    return;
  process.exitCode = 1;
  console.error(`process warning fails this run: ${warning.name}: ${warning.message}`);
  throw warning;
});
