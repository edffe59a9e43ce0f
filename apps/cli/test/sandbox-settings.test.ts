import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type Json, makeProject, runToolhost } from './helpers.js';

// Real commands in the bubblewrap sandbox (Linux) through the built CLI.
const linux = process.platform === 'linux';
const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

function fetchCommand(url: string): string {
  return hasCurl
    ? `curl -sS --max-time 15 ${url}`
    : `node -e "fetch('${url}').then(r => r.text()).then(t => console.log(t), e => { console.error(String(e)); process.exit(1); })"`;
}

describe('toolhost shell sandbox settings', { skip: !linux && 'bubblewrap (Linux)' }, () => {
  it('issue 20: --network gives a workspace_write shell the host network (a loopback server of the test answers), and without it the call fails', async (t) => {
    const server = createServer((_request, response) => response.end('answer-from-loopback'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const project = await makeProject({ 'a.txt': 'a\n' });
    t.after(() => project.cleanup());
    const args = JSON.stringify({ command: fetchCommand(url) });
    const reached = await runToolhost(['call', 'bash', args, '--sandbox', 'workspace_write', '--network'], {
      cwd: project.root,
    });
    assert.equal(reached.code, 0, reached.stdout + reached.stderr);
    assert.match(reached.stdout, /answer-from-loopback/);
    const refused = await runToolhost(['call', 'bash', args, '--sandbox', 'workspace_write'], {
      cwd: project.root,
    });
    assert.equal(refused.code, 1, refused.stdout);
    assert.doesNotMatch(refused.stdout, /answer-from-loopback/);
  });

  it('keeps /tmp across the lines of one session and starts the next session with an empty one', async (t) => {
    const project = await makeProject({ 'a.txt': 'a\n' });
    t.after(() => project.cleanup());
    const line = (id: string, command: string) =>
      JSON.stringify({ id, name: 'bash', arguments: { command } });
    const first = await runToolhost(['session'], {
      cwd: project.root,
      input: `${line('w', 'echo session-scoped > /tmp/kept.txt')}\n${line('r', 'cat /tmp/kept.txt')}\n`,
    });
    assert.equal(first.code, 0, first.stderr);
    const [wrote, read] = first.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Json);
    assert.equal(wrote.status, 'ok', wrote.output);
    assert.equal(read.status, 'ok', read.output);
    assert.match(read.output, /session-scoped/);
    const second = await runToolhost(['session'], {
      cwd: project.root,
      input: `${line('r', 'cat /tmp/kept.txt')}\n`,
    });
    const again = JSON.parse(second.stdout.trim()) as Json;
    assert.equal(again.status, 'error');
    assert.doesNotMatch(again.output, /session-scoped/);
  });

  it('names the shell settings an untrusted project configuration did not get on stderr', async (t) => {
    const project = await makeProject({ 'a.txt': 'a\n' });
    t.after(() => project.cleanup());
    await writeFile(
      join(project.root, 'toolhost.config.json'),
      JSON.stringify({ sandbox: { network: true }, shellEnvironment: { include: ['GOPATH'] } }),
    );
    const run = await runToolhost(['call', 'bash', '{"command":"echo hi"}'], { cwd: project.root });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /not applied: sandbox\.network, shellEnvironment\.include\[0\]/);
  });
});
