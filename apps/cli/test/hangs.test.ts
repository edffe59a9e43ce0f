import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Json, makeProject, spawnToolhost } from './helpers.js';

// Issue 15, "Hangs": a model-supplied regex or glob once ran on V8's backtracking engine on the
// host's only thread, so no later call answered and end of input did not end `toolhost session`.
// These tests drive the built CLI as a black box.

/** Generous: only tells a blocked process from a slow one on a loaded machine (nothing asserts time). */
const DEADLINE_MS = 120_000;

/** Writes every line at once, ends the input, and collects the output lines until the process exits. */
async function runSession(
  args: readonly string[],
  cwd: string,
  lines: readonly unknown[],
): Promise<{ exited: boolean; code: number | null; replies: Json[]; stderr: string }> {
  const child = spawnToolhost(['session', ...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // End of input arrives while the first calls are still being answered.
  child.stdin!.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return new Promise((resolve, reject) => {
    let exited = true;
    const timer = setTimeout(() => {
      exited = false;
      child.kill('SIGKILL');
    }, DEADLINE_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const replies = stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      resolve({ exited, code, replies, stderr });
    });
  });
}

describe('toolhost session (issue 15: nothing blocks the host)', () => {
  it('end of input ends the session while pathological job_output filter and glob calls are in flight, and a later call still answers', async () => {
    const longName = `${'a'.repeat(99)}b`;
    const project = await makeProject({
      'README.md': '# Lantern\n',
      [longName]: '',
      ['a'.repeat(100)]: '',
    });
    try {
      const run = await runSession(['--surface', 'full', '--sandbox', 'workspace_write'], project.root, [
        {
          id: 'start',
          name: 'bash',
          arguments: { command: `echo ${'a'.repeat(46)}!; echo ${'a'.repeat(46)}`, run_in_background: true },
        },
        { id: 'filter', name: 'job_output', arguments: { job_id: 'bash-1', wait: true, filter: '^(a+)+$' } },
        { id: 'glob', name: 'glob', arguments: { pattern: `${'*a'.repeat(11)}*b` } },
        { id: 'later', name: 'read_file', arguments: { path: 'README.md' } },
      ]);
      assert.ok(run.exited, `the session did not end after end of input; stderr: ${run.stderr}`);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(
        run.replies.map((reply) => [reply.id, reply.status]),
        [
          ['start', 'ok'],
          ['filter', 'ok'],
          ['glob', 'ok'],
          ['later', 'ok'],
        ],
        JSON.stringify(run.replies),
      );
      const [, filter, glob, later] = run.replies;
      assert.equal(filter.output, `${'a'.repeat(46)}\n[status: done]`);
      assert.equal(glob.output, longName);
      assert.match(later.output, /# Lantern/);
    } finally {
      await project.cleanup();
    }
  });

  it('refuses a filter that needs backtracking with ARGUMENT_VALIDATION saying why, and keeps answering', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    try {
      const run = await runSession(['--sandbox', 'workspace_write'], project.root, [
        { id: 1, name: 'bash', arguments: { command: 'echo alpha', run_in_background: true } },
        { id: 2, name: 'job_output', arguments: { job_id: 'bash-1', filter: '(a)\\1' } },
        { id: 3, name: 'job_output', arguments: { job_id: 'bash-1', wait: true, filter: 'alp' } },
      ]);
      assert.ok(run.exited, run.stderr);
      assert.equal(run.code, 0, run.stderr);
      const [, refused, after] = run.replies;
      assert.equal(refused.status, 'error');
      assert.equal(refused.error.code, 'ARGUMENT_VALIDATION');
      assert.match(refused.error.message, /backreference .*needs a backtracking engine/);
      assert.equal(after.status, 'ok');
      assert.equal(after.output, 'alpha\n[status: done]', 'the refused call consumed nothing');
    } finally {
      await project.cleanup();
    }
  });
});
