#!/usr/bin/env node
import { runCli } from './run-cli.js';

const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
// Every command has closed what it opened by now (hosts, jobs, servers, sockets). If a stray handle
// still holds the event loop, leave a moment for stdout to drain and then exit anyway rather than
// hang a script; the timer is unref'd, so a clean exit is never delayed by it.
setTimeout(() => process.exit(exitCode), 1_000).unref();
