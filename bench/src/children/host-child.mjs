// One measured operation in a fresh Node process, so its peak resident memory belongs to
// that operation and a host's own baseline is measured the same way. Plain JavaScript importing the
// packages' built `dist` (as the CLI does): no TypeScript loader inflates the figures.
//
//   node host-child.mjs '{"mode": "...", ...}'   → one JSON line on stdout
//
// Modes: bare, import, host-idle, read-window, job, edit, raw-edit (see below).
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';

const input = JSON.parse(process.argv[2] ?? '{}');

/**
 * This process's peak resident set size. On Linux, VmHWM of /proc/self/status: the high-water mark
 * of this program's own memory. Not `process.resourceUsage().maxRSS`: Linux carries ru_maxrss across
 * fork and exec, so a child spawned by a big parent reports the parent's size (a parent of 340 MB
 * made a bare `node -e` child report 304 MB where VmHWM said 40 MB). Elsewhere maxRSS is all there is.
 */
function peakRssBytes() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // no /proc
  }
  // maxRSS is in kilobytes (KiB) on Linux and macOS alike in Node's resourceUsage().
  return process.resourceUsage().maxRSS * 1024;
}

function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

function expectOk(result, what) {
  if (result.status !== 'ok') throw new Error(`${what} failed: ${result.output.slice(0, 500)}`);
  return result;
}

async function openHost(options = {}) {
  // Imported here, not at the top: the raw-edit baseline must not pay for loading the Host.
  const { createHost } = await import('@toolhost/boot');
  return createHost({ root: input.root, config: false, stateDir: input.stateDir, ...options });
}

/** A host that has served one small read: the baseline every host-side figure is compared with. */
async function warmHost(options) {
  const host = await openHost(options);
  expectOk(
    await host.dispatch({ id: 'warm', name: 'read_file', arguments: { path: input.small, limit: 10 } }),
    'the warm-up read',
  );
  return host;
}

async function main() {
  const result = {};
  let host;
  try {
    switch (input.mode) {
      case 'bare': {
        // Node alone: the floor of every figure here.
        break;
      }
      case 'import': {
        // The Host's packages loaded, no Host created: what the module graph itself holds.
        await import('@toolhost/boot');
        break;
      }
      case 'host-idle': {
        host = await warmHost();
        break;
      }
      case 'read-window': {
        host = await warmHost();
        const started = now();
        const read = expectOk(
          await host.dispatch({
            id: 'read',
            name: 'read_file',
            arguments: { path: input.path, offset: input.offset, limit: input.limit },
          }),
          'read_file',
        );
        result.elapsedMs = now() - started;
        result.output = read.output;
        break;
      }
      case 'job': {
        host = await warmHost({ sandbox: input.sandbox ?? 'read_only' });
        const started = now();
        const start = expectOk(
          await host.dispatch({
            id: 'start',
            name: 'bash',
            arguments: {
              command: input.command,
              run_in_background: true,
              description: 'benchmark output flood',
            },
          }),
          'starting the job',
        );
        const jobId = start.details?.jobId;
        if (typeof jobId !== 'string') throw new Error(`no job id in ${JSON.stringify(start.details)}`);
        let state = 'running';
        let details;
        while (state === 'running') {
          const waited = expectOk(
            await host.dispatch({
              id: 'wait',
              name: 'job_output',
              arguments: { job_id: jobId, wait: true, timeout_ms: 600000 },
            }),
            'job_output',
          );
          details = waited.details ?? {};
          state = String(details.state);
        }
        result.elapsedMs = now() - started;
        result.state = state;
        result.exitCode = details.exitCode ?? null;
        result.outputBytes = details.outputBytes ?? null;
        result.sandbox = start.details?.sandbox ?? null;
        break;
      }
      case 'edit': {
        host = await openHost({ sandbox: 'workspace_write', approval: 'never' });
        expectOk(
          await host.dispatch({
            id: 'observe',
            name: 'read_file',
            arguments: { path: input.path, limit: 1 },
          }),
          'the observing read',
        );
        const started = now();
        const edit = expectOk(
          await host.dispatch({
            id: 'edit',
            name: 'edit_file',
            arguments: { path: input.path, old_string: input.from, new_string: input.to },
          }),
          'edit_file',
        );
        result.elapsedMs = now() - started;
        result.output = edit.output.slice(0, 200);
        break;
      }
      case 'raw-edit': {
        const started = now();
        const text = await readFile(input.file, 'utf8');
        const index = text.indexOf(input.from);
        if (index === -1) throw new Error('the raw edit found nothing to replace');
        await writeFile(input.file, text.replace(input.from, input.to));
        result.elapsedMs = now() - started;
        break;
      }
      default:
        throw new Error(`unknown mode ${input.mode}`);
    }
  } finally {
    if (host) await host.close();
  }
  result.maxRssBytes = peakRssBytes();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
