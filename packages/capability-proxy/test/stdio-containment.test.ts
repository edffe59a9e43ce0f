// Regression tests for issue 15's MCP orphans: a grandchild of a stdio MCP server that left the
// server's process group with `setsid` survived the server's close and the host's death.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createStdioTransport } from '../src/stdio-transport.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const linux = process.platform === 'linux';

/** Live processes whose whole command line is `needle`, from /proc. */
function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'latin1')
        .replace(/\0$/, '')
        .replace(/\0/g, ' ');
      if (commandLine === needle) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(20);
  }
}

let counter = 0;
/** A unique `sleep` argument for one test; its sleepers are killed afterwards should the test fail. */
function sleeperTag(t: TestContext): string {
  counter += 1;
  const tag = `${60_000 + ((process.pid * 31 + counter * 7) % 9_000)}.5`;
  t.after(() => {
    for (const pid of processesMatching(`sleep ${tag}`)) process.kill(pid, 'SIGKILL');
  });
  return tag;
}

/** A "server" that leaves a setsid grandchild behind and then echoes stdin (never answers MCP). */
function escapingServer(tag: string): string[] {
  return ['-c', `setsid sleep ${tag} </dev/null >/dev/null 2>&1 & exec cat`];
}

describe('createStdioTransport containment', { skip: !linux && 'pid namespaces are Linux only' }, () => {
  it('ends a setsid grandchild of an MCP server when the transport closes (MCP orphans, JOB-TREE-5)', async (t) => {
    const tag = sleeperTag(t);
    const transport = createStdioTransport({
      command: 'bash',
      args: escapingServer(tag),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      maxMessageBytes: 1 << 20,
      maxGarbageLines: 1000,
      closeGraceMs: 300,
      maxLogBytes: 1 << 20,
    });
    t.after(() => transport.close());
    await transport.start();
    assert.equal(transport.containment, 'contained');
    await waitUntil('the grandchild runs', () => processesMatching(`sleep ${tag}`).length === 1);
    await transport.close();
    await waitUntil('the grandchild is gone', () => processesMatching(`sleep ${tag}`).length === 0, 10_000);
  });

  it('ends every process of an MCP server when its host is killed (MCP orphans, JOB-TREE-5)', async (t) => {
    const tag = sleeperTag(t);
    const host = spawn(
      process.execPath,
      [
        '--conditions=@toolhost/source',
        '--import',
        'tsx',
        path.join(packageDir, 'test', 'fixtures', 'transport-host.ts'),
        'bash',
        ...escapingServer(tag),
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    t.after(() => {
      if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL');
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      host.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve();
      });
      host.once('exit', () => reject(new Error(`the host exited early: ${output}`)));
    });
    assert.match(output, /^started \d+ contained/);
    await waitUntil('the grandchild runs', () => processesMatching(`sleep ${tag}`).length === 1);
    await new Promise<void>((resolve) => {
      host.once('exit', () => resolve());
      host.kill('SIGKILL');
    });
    await waitUntil('the grandchild is gone', () => processesMatching(`sleep ${tag}`).length === 0, 10_000);
  });

  it('still reports a missing executable as a failed start, as before containment', async () => {
    const transport = createStdioTransport({
      command: 'toolhost-no-such-server',
      args: [],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      maxMessageBytes: 1 << 20,
      maxGarbageLines: 1000,
      closeGraceMs: 300,
      maxLogBytes: 1 << 20,
    });
    await assert.rejects(transport.start(), { code: 'ENOENT' });
    assert.match(transport.exitDescription ?? '', /could not be started \(ENOENT\)/);
  });
});
