#!/usr/bin/env node
import { runCli } from './run-cli.js';

// Once stdout's reader is gone (`toolhost session | head -1`), later writes fail with EPIPE; the
// command has been told to stop (runCli aborts it), so these are expected and not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
// Every command has closed what it opened by now (hosts, jobs, servers, sockets). If a stray handle
// still holds the event loop, leave a moment for stdout to drain and then exit anyway rather than
// hang a script; the timer is unref'd, so a clean exit is never delayed by it.
setTimeout(() => process.exit(exitCode), 1_000).unref();
