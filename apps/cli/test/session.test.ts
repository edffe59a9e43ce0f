import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  type Json,
  makeProject,
  pidsMatching,
  runToolhost,
  SessionDriver,
  uniqueSleep,
  waitFor,
} from './helpers.js';

const FILES = {
  'README.md': '# Lantern\n\nLantern is a tiny demo project.\n',
  'src/index.ts': 'export function shine(level: number): string {\n  return "*".repeat(level);\n}\n',
  'src/dim.ts': 'export function dim(): string {\n  return "";\n}\n',
  'notes/todo.txt': 'first\nsecond\nthird\n',
};

/** Runs `body` with a session over a fresh project; the session and the project are always cleaned up. */
async function withSession(
  args: readonly string[],
  body: (session: SessionDriver, root: string) => Promise<void>,
  files: Record<string, string> = FILES,
): Promise<void> {
  const project = await makeProject(files);
  const session = SessionDriver.start(args, { cwd: project.root });
  try {
    await body(session, project.root);
    const exit = await session.close();
    assert.equal(exit.code, 0, session.stderr);
    assert.deepEqual(exit.rest, [], 'no output line without an input line');
  } finally {
    session.kill();
    await project.cleanup();
  }
}

function assertLine(line: Json): void {
  assert.deepEqual(
    Object.keys(line).filter((key) => key !== 'notice'),
    ['id', 'name', 'status', 'output', 'error', 'resultRef'],
  );
  assert.ok(line.status === 'ok' || line.status === 'error');
  assert.equal(typeof line.output, 'string');
  if (line.status === 'ok') assert.equal(line.error, null);
  else {
    assert.deepEqual(Object.keys(line.error), ['code', 'message']);
    assert.ok(line.output.startsWith(`${line.error.code}: `), line.output);
  }
}

async function expectOk(session: SessionDriver, call: unknown): Promise<Json> {
  const line = await session.send(call);
  assertLine(line);
  assert.equal(line.status, 'ok', line.output);
  return line;
}

async function expectError(session: SessionDriver, call: unknown, code: string): Promise<Json> {
  const line = await session.send(call);
  assertLine(line);
  assert.equal(line.status, 'error', `expected ${code}, got ok: ${line.output}`);
  assert.equal(line.error.code, code, line.output);
  return line;
}

/** The kernel's short name of a process (`comm`), or '' when it is gone. */
function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

describe('toolhost session (protocol)', () => {
  it('answers one line per input line, in order, echoing ids, and keeps stdout to protocol lines', async () => {
    await withSession([], async (session) => {
      const first = await expectOk(session, {
        id: 'a1',
        name: 'read_file',
        arguments: { path: 'README.md' },
      });
      assert.equal(first.id, 'a1');
      assert.equal(first.name, 'read_file');
      assert.match(first.output, /Lantern is a tiny demo project/);
      const numbered = await expectOk(session, {
        id: 7,
        name: 'read_file',
        arguments: '{"path":"notes/todo.txt"}',
      });
      assert.equal(numbered.id, 7, 'a number id stays a number; arguments may be a JSON string');
      const generated = await expectOk(session, { name: 'read_file', arguments: { path: 'README.md' } });
      assert.equal(typeof generated.id, 'string');
    });
  });

  it('stops cleanly, closing the host, when the reader of stdout goes away (EPIPE)', async () => {
    const project = await makeProject(FILES);
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      await expectOk(session, { name: 'read_file', arguments: { path: 'README.md' } });
      session.child.stdout!.destroy();
      const exited = new Promise<number | null>((resolve) =>
        session.child.on('close', (code) => resolve(code)),
      );
      for (let line = 0; line < 5 && session.child.exitCode === null; line += 1) {
        session.child.stdin!.write(
          `${JSON.stringify({ name: 'read_file', arguments: { path: 'README.md' } })}\n`,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await exited, 130);
      assert.doesNotMatch(session.stderr, /Unhandled|EPIPE/);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('answers malformed lines with SESSION_LINE_INVALID and keeps going', async () => {
    await withSession([], async (session) => {
      for (const line of [
        'not json',
        '',
        '[1,2]',
        '{"id":"x"}',
        '{"name":""}',
        '{"id":{"a":1},"name":"read_file"}',
        '{"batch":"no"}',
        '42',
      ]) {
        const answer = await session.send(line);
        assertLine(answer);
        assert.equal(answer.error.code, 'SESSION_LINE_INVALID', line);
      }
      const named = await session.send('{"id":"keep","arguments":{}}');
      assert.equal(named.id, 'keep', 'the id of a malformed call is echoed when it is usable');
      await expectOk(session, { id: 'after', name: 'read_file', arguments: { path: 'README.md' } });
    });
  });

  it('runs a batch as one turn: results in call order, malformed entries answered in place, notice only when the breaker speaks', async () => {
    await withSession(['--surface', 'full'], async (session) => {
      const answer = await session.send({
        batch: [
          { id: 'b1', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'b2', arguments: {} },
          { id: 'b3', name: 'grep', arguments: { pattern: 'export function', path: 'src' } },
          { id: 'b4', name: 'ls', arguments: { path: 'src' } },
        ],
      });
      assert.deepEqual(Object.keys(answer), ['batch']);
      assert.deepEqual(
        answer.batch.map((line: Json) => line.id),
        ['b1', 'b2', 'b3', 'b4'],
      );
      for (const line of answer.batch) assertLine(line);
      assert.equal(answer.batch[1].error.code, 'SESSION_LINE_INVALID');
      assert.match(answer.batch[2].output, /shine/);
      assert.match(answer.batch[2].output, /dim/);
      assert.match(answer.batch[3].output, /index\.ts/);
      const empty = await session.send({ batch: [] });
      assert.deepEqual(empty, { batch: [] });
    });
  });

  it('reports TOOL_NOT_FOUND with close names and ARGUMENT_VALIDATION without running anything', async () => {
    await withSession([], async (session) => {
      const missing = await expectError(
        session,
        { name: 'read_fil', arguments: { path: 'README.md' } },
        'TOOL_NOT_FOUND',
      );
      assert.match(missing.output, /read_file/);
      await expectError(session, { name: 'read_file', arguments: { path: 5 } }, 'ARGUMENT_VALIDATION');
      await expectError(session, { name: 'read_file', arguments: {} }, 'ARGUMENT_VALIDATION');
      await expectError(session, { name: 'read_file', arguments: '{"path": ' }, 'ARGUMENT_VALIDATION');
    });
  });

  it('speaks through the storm breaker when the same failing call repeats, on single lines and batches', async () => {
    await withSession([], async (session) => {
      let notice: string | undefined;
      for (let attempt = 0; attempt < 8 && !notice; attempt += 1) {
        const line = await expectError(
          session,
          { name: 'read_file', arguments: { path: 'missing.txt' } },
          'FS_NOT_FOUND',
        );
        notice = line.notice;
      }
      assert.equal(typeof notice, 'string', 'the breaker spoke on a single-call line');
      let batchNotice: string | undefined;
      for (let attempt = 0; attempt < 8 && !batchNotice; attempt += 1) {
        const answer = await session.send({
          batch: [{ name: 'read_file', arguments: { path: 'gone.txt' } }],
        });
        batchNotice = answer.notice;
        assert.equal(answer.batch[0].notice, undefined, 'a batch carries the notice on the batch');
      }
      assert.equal(typeof batchNotice, 'string', 'the breaker spoke on a batch line');
    });
  });
});

describe('toolhost session (read-only tools)', () => {
  it('reads, lists, globs and greps directly on the full surface and through use_capability on the lean one', async () => {
    await withSession(['--surface', 'full'], async (session) => {
      assert.match((await expectOk(session, { name: 'ls', arguments: { path: '.' } })).output, /README\.md/);
      assert.match(
        (await expectOk(session, { name: 'glob', arguments: { pattern: '**/*.ts' } })).output,
        /src\/dim\.ts/,
      );
      assert.match(
        (await expectOk(session, { name: 'grep', arguments: { pattern: 'repeat' } })).output,
        /index\.ts/,
      );
    });
    await withSession([], async (session) => {
      const viaProxy = await expectOk(session, {
        name: 'use_capability',
        arguments: {
          action: 'call',
          capability_id: 'tool:grep',
          arguments: { pattern: 'export function', path: 'src' },
        },
      });
      assert.match(viaProxy.output, /shine/);
      const listed = await expectOk(session, { name: 'use_capability', arguments: { action: 'list' } });
      assert.match(listed.output, /tool:grep/);
    });
  });

  it('refuses paths outside the root (PATH_OUTSIDE_ROOT) and reports missing files (FS_NOT_FOUND)', async () => {
    await withSession([], async (session) => {
      await expectError(
        session,
        { name: 'read_file', arguments: { path: '../../etc/passwd' } },
        'PATH_OUTSIDE_ROOT',
      );
      await expectError(
        session,
        { name: 'read_file', arguments: { path: '/etc/hostname' } },
        'PATH_OUTSIDE_ROOT',
      );
      await expectError(session, { name: 'read_file', arguments: { path: 'nope.txt' } }, 'FS_NOT_FOUND');
    });
  });

  it('pages a truncated result with session:tool_result (RESULT_NOT_FOUND, RESULT_RANGE_INVALID)', async () => {
    const big = Array.from({ length: 6000 }, (_, index) => `line ${index} ${'x'.repeat(20)}`).join('\n');
    await withSession(
      [],
      async (session) => {
        const truncated = await expectOk(session, {
          id: 'big',
          name: 'bash',
          arguments: { command: 'cat big.txt' },
        });
        assert.equal(typeof truncated.resultRef, 'string', 'a result over the cap is kept and referenced');
        const page = await expectOk(session, {
          name: 'use_capability',
          arguments: {
            action: 'call',
            capability_id: 'session:tool_result',
            arguments: { tool_call_id: 'big', result_ref: truncated.resultRef, offset: 0, limit: 1000 },
          },
        });
        assert.match(page.output, /line 0 /);
        await expectError(
          session,
          {
            name: 'use_capability',
            arguments: {
              action: 'call',
              capability_id: 'session:tool_result',
              arguments: { tool_call_id: 'big', result_ref: truncated.resultRef, offset: 99_999_999 },
            },
          },
          'RESULT_RANGE_INVALID',
        );
        await expectError(
          session,
          {
            name: 'use_capability',
            arguments: {
              action: 'call',
              capability_id: 'session:tool_result',
              arguments: { tool_call_id: 'nobody', result_ref: 'tr-000000000000000000000000' },
            },
          },
          'RESULT_NOT_FOUND',
        );
      },
      { ...FILES, 'big.txt': big },
    );
  });
});

describe('toolhost session (editing tools)', () => {
  it('denies writes in read_only (PERMISSION_DENIED) and leaves the file alone', async () => {
    await withSession([], async (session, root) => {
      await expectError(
        session,
        { name: 'write_file', arguments: { path: 'new.txt', content: 'x' } },
        'PERMISSION_DENIED',
      );
      await expectOk(session, { name: 'read_file', arguments: { path: 'README.md' } });
      await expectError(
        session,
        { name: 'edit_file', arguments: { path: 'README.md', old_string: 'Lantern', new_string: 'Torch' } },
        'PERMISSION_DENIED',
      );
      assert.equal(await readFile(join(root, 'README.md'), 'utf8'), FILES['README.md']);
    });
  });

  it('writes and edits in workspace_write only with current evidence (FS_NOT_OBSERVED, FS_STALE_VERSION, EDIT_NOT_FOUND)', async () => {
    await withSession(['--sandbox', 'workspace_write'], async (session, root) => {
      await expectOk(session, { name: 'write_file', arguments: { path: 'new.txt', content: 'hello\n' } });
      assert.equal(await readFile(join(root, 'new.txt'), 'utf8'), 'hello\n');
      await expectError(
        session,
        { name: 'write_file', arguments: { path: 'README.md', content: 'gone' } },
        'FS_NOT_OBSERVED',
      );
      await expectError(
        session,
        { name: 'edit_file', arguments: { path: 'notes/todo.txt', old_string: 'second', new_string: '2nd' } },
        'FS_NOT_OBSERVED',
      );
      await expectOk(session, { name: 'read_file', arguments: { path: 'notes/todo.txt' } });
      await expectOk(session, {
        name: 'edit_file',
        arguments: { path: 'notes/todo.txt', old_string: 'second', new_string: '2nd' },
      });
      assert.equal(await readFile(join(root, 'notes/todo.txt'), 'utf8'), 'first\n2nd\nthird\n');
      await expectError(
        session,
        { name: 'edit_file', arguments: { path: 'notes/todo.txt', old_string: 'fourth', new_string: '4th' } },
        'EDIT_NOT_FOUND',
      );
      await expectOk(session, { name: 'read_file', arguments: { path: 'README.md' } });
      await writeFile(join(root, 'README.md'), '# Changed behind the model\n');
      await expectError(
        session,
        { name: 'edit_file', arguments: { path: 'README.md', old_string: 'Changed', new_string: 'Seen' } },
        'FS_STALE_VERSION',
      );
      assert.equal(await readFile(join(root, 'README.md'), 'utf8'), '# Changed behind the model\n');
      await expectError(
        session,
        { name: 'write_file', arguments: { path: '../escape.txt', content: 'x' } },
        'PATH_OUTSIDE_ROOT',
      );
    });
  });
});

describe('toolhost session (shell tools)', () => {
  it('runs commands and reports COMMAND_FAILED and TIMEOUT with the output', async () => {
    await withSession([], async (session) => {
      assert.match(
        (await expectOk(session, { name: 'bash', arguments: { command: 'echo hello from the shell' } }))
          .output,
        /hello from the shell/,
      );
      const failed = await expectError(
        session,
        { name: 'bash', arguments: { command: 'echo before; exit 3' } },
        'COMMAND_FAILED',
      );
      assert.match(failed.output, /before/);
      await expectError(
        session,
        { name: 'bash', arguments: { command: 'sleep 30', timeout_ms: 300 } },
        'TIMEOUT',
      );
      await expectOk(session, { name: 'shell', arguments: { command: 'true' } });
    });
  });

  it('runs background jobs, reads and kills them (JOB_NOT_FOUND for unknown ids), and ends them when input ends', async () => {
    const project = await makeProject(FILES);
    const session = SessionDriver.start([], { cwd: project.root });
    const first = uniqueSleep();
    const second = uniqueSleep();
    try {
      const started = await expectOk(session, {
        name: 'bash',
        arguments: { command: `echo started; exec sleep ${first}`, run_in_background: true },
      });
      const jobId = /job "([^"]+)"/.exec(started.output)?.[1];
      assert.ok(jobId, started.output);
      await waitFor(() => pidsMatching(`sleep ${first}`).length > 0);
      const output = await expectOk(session, {
        name: 'job_output',
        arguments: { job_id: jobId, wait: false },
      });
      assert.match(output.output, /\[status: running\]/);
      await expectError(session, { name: 'job_output', arguments: { job_id: 'bash-999' } }, 'JOB_NOT_FOUND');
      const other = await expectOk(session, {
        name: 'bash',
        arguments: { command: `exec sleep ${second}`, run_in_background: true },
      });
      const otherId = /job "([^"]+)"/.exec(other.output)?.[1];
      await waitFor(() => pidsMatching(`sleep ${second}`).length > 0);
      assert.match(
        (await expectOk(session, { name: 'job_kill', arguments: { job_id: otherId } })).output,
        /killed|cancellation/i,
      );
      await waitFor(() => pidsMatching(`sleep ${second}`).length === 0);
      assert.ok(pidsMatching(`sleep ${first}`).length > 0, 'the other job still runs');
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
      await waitFor(() => pidsMatching(`sleep ${first}`).length === 0);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('fails closed when a call needs approval and nobody can be asked (APPROVAL_REQUIRED), and honours deny rules', async () => {
    await withSession(['--approval', 'strict'], async (session) => {
      await expectError(session, { name: 'bash', arguments: { command: 'echo hi' } }, 'APPROVAL_REQUIRED');
    });
    await withSession(
      [],
      async (session) => {
        await expectError(session, { name: 'bash', arguments: { command: 'echo hi' } }, 'APPROVAL_DENIED');
      },
      { ...FILES, 'toolhost.config.json': JSON.stringify({ permissions: { deny: ['bash'] } }) },
    );
  });

  it('reaches a configured MCP server through use_capability and ends it when input ends', async () => {
    const server = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-memory/dist/index.js',
    );
    const marker = `memory-${uniqueSleep()}.json`;
    const config = {
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [server],
          env: { MEMORY_FILE_PATH: join(tmpdir(), marker) },
        },
      },
      // The server's tools do not declare themselves safe: without a rule they fail closed here.
      permissions: { allow: ['mcp__memory__read_graph'] },
    };
    const project = await makeProject({ ...FILES, 'toolhost.config.json': JSON.stringify(config) });
    // A project's servers start without asking only once the user approved its configuration.
    const trusted = await runToolhost(['trust'], { cwd: project.root });
    assert.equal(trusted.code, 0, trusted.stderr);
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      const connected = await expectOk(session, {
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'mcp-server:memory' },
      });
      assert.match(connected.output, /mcp-tool:memory\/read_graph/);
      const graph = await expectOk(session, {
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'mcp-tool:memory/read_graph', arguments: {} },
      });
      assert.match(graph.output, /entities/);
      await expectError(
        session,
        {
          name: 'use_capability',
          arguments: {
            action: 'call',
            capability_id: 'mcp-tool:memory/search_nodes',
            arguments: { query: 'x' },
          },
        },
        'APPROVAL_REQUIRED',
      );
      // The stdio transport runs the server in a pid namespace of its own (issue 15): bubblewrap's
      // two processes carry the server's command line too; the server itself runs once.
      const servers = pidsMatching(server).filter((pid) => processName(pid) !== 'bwrap');
      assert.equal(servers.length, 1, 'the server runs once the session used it');
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
      await waitFor(() => pidsMatching(server).length === 0);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });
});
