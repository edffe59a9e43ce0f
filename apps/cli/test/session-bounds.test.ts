import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  type Json,
  makeProject,
  pidsMatching,
  serverPidsMatching,
  REPO_ROOT,
  runToolhost,
  SessionDriver,
  waitFor,
} from './helpers.js';

/** The capability proxy's misbehaving MCP server (a real stdio process written for the tests). */
const MISBEHAVING_SERVER = join(REPO_ROOT, 'packages/capability-proxy/test/fixtures/misbehaving-server.mjs');
const LINE_LIMIT = 4 * 1024 * 1024;

function misbehavingConfig(marker: string): string {
  return JSON.stringify({
    mcpServers: {
      fx: { command: process.execPath, args: [MISBEHAVING_SERVER, '--bounds', `--pid-file=${marker}`] },
    },
    permissions: { allow: ['mcp__fx__progress-forever', 'mcp__fx__echo'] },
  });
}

describe('toolhost session (end of input)', () => {
  it('ends promptly after end of input while an MCP tool sends progress every 50 ms and never answers, answering the call ABORTED and ending the server', async () => {
    const marker = `pids-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
    // An explicit --config is the user's own choice (a project file would need `toolhost trust`).
    const project = await makeProject({ 'servers.json': misbehavingConfig(marker) });
    const session = SessionDriver.start(['--config', 'servers.json'], { cwd: project.root });
    try {
      const echo = await session.send({
        id: 'e1',
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'mcp-tool:fx/echo', arguments: { message: 'hi' } },
      });
      assert.equal(echo.status, 'ok', echo.output);
      assert.equal(serverPidsMatching(marker).length, 1, 'the server runs');
      session.child.stdin!.write(
        `${JSON.stringify({
          id: 'h1',
          name: 'use_capability',
          arguments: { action: 'call', capability_id: 'mcp-tool:fx/progress-forever', arguments: {} },
        })}\n`,
      );
      // Without the drain the session would wait for the proxy's hard total (10 minutes before this fix).
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
      assert.equal(exit.rest.length, 1, 'the hanging call is answered');
      const answer: Json = JSON.parse(exit.rest[0]!);
      assert.equal(answer.id, 'h1');
      assert.equal(answer.status, 'error');
      assert.equal(answer.error.code, 'ABORTED', answer.output);
      await waitFor(() => pidsMatching(marker).length === 0);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('still answers every line of a piped script whose calls finish within the drain time', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    try {
      const lines = Array.from({ length: 20 }, (_, index) =>
        JSON.stringify({ id: index, name: 'read_file', arguments: { path: 'README.md' } }),
      );
      const result = await runToolhost(['session'], { cwd: project.root, input: `${lines.join('\n')}\n` });
      assert.equal(result.code, 0, result.stderr);
      const answers = result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        answers.map((answer) => [answer.id, answer.status]),
        lines.map((_, index) => [index, 'ok']),
      );
    } finally {
      await project.cleanup();
    }
  });

  it('cancels a call still running --drain-ms after end of input, and refuses a bad --drain-ms', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    try {
      const result = await runToolhost(['session', '--drain-ms', '0'], {
        cwd: project.root,
        input: `${JSON.stringify({ id: 's', name: 'bash', arguments: { command: 'sleep 60' } })}\n`,
      });
      assert.equal(result.code, 0, result.stderr);
      const answer = JSON.parse(result.stdout);
      assert.equal(answer.error?.code, 'ABORTED', result.stdout);
      const bad = await runToolhost(['session', '--drain-ms', 'soon'], { cwd: project.root });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--drain-ms/);
    } finally {
      await project.cleanup();
    }
  });
});

describe('toolhost session (bounded input)', () => {
  it('answers a 12 MB line with SESSION_LINE_INVALID echoing its id, without reading it, and keeps going', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      const huge = `{"id":"big","name":"read_file","arguments":{"path":"${'x'.repeat(12 * 1024 * 1024)}"}}`;
      const refused = await session.send(huge);
      assert.equal(refused.id, 'big');
      assert.equal(refused.status, 'error');
      assert.equal(refused.error.code, 'SESSION_LINE_INVALID');
      assert.match(refused.output, new RegExp(`larger than ${LINE_LIMIT} bytes`));
      // A huge arguments string under the line limit is the host's to refuse, value-free.
      const longPath = await session.send({
        id: 'long',
        name: 'read_file',
        arguments: JSON.stringify({ path: 'y'.repeat(3 * 1024 * 1024) }),
      });
      assert.equal(longPath.status, 'error');
      assert.ok(longPath.output.length < 4096, 'the error does not echo the argument');
      const read = await session.send({ id: 'ok', name: 'read_file', arguments: { path: 'README.md' } });
      assert.equal(read.status, 'ok', read.output);
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('refuses a batch of more than 128 calls with one error line and runs none of them', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      const batch = Array.from({ length: 20_000 }, (_, index) => ({
        id: index,
        name: 'read_file',
        arguments: { path: 'README.md' },
      }));
      const refused = await session.send({ batch });
      assert.equal(refused.error?.code, 'SESSION_LINE_INVALID', JSON.stringify(refused).slice(0, 300));
      assert.match(refused.output, /20000 calls, more than the 128/);
      const fine = await session.send({ batch: batch.slice(0, 128) });
      assert.equal(fine.batch.length, 128);
      assert.ok(fine.batch.every((result: Json) => result.status === 'ok'));
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('answers arguments nested 500,000 levels deep with a value-free error, not a crash', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      const deep = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
      const refused = await session.send(`{"id":"deep","name":"read_file","arguments":{"path":${deep}}}`);
      assert.equal(refused.id, 'deep');
      assert.equal(refused.status, 'error');
      assert.equal(refused.error.code, 'ARGUMENT_VALIDATION', refused.output);
      const viaCapability = await session.send(
        `{"id":"deep2","name":"use_capability","arguments":{"action":"call","capability_id":"tool:ls","arguments":{"path":${deep}}}}`,
      );
      assert.equal(viaCapability.status, 'error');
      const read = await session.send({ id: 'ok', name: 'read_file', arguments: { path: 'README.md' } });
      assert.equal(read.status, 'ok', read.output);
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });
});
