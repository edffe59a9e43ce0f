import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runIsolatedCall } from '../isolated-call.js';
import { processesMatching, resultText, shellFixture, uniqueTag, waitUntil } from './shell-helpers.js';

async function background(shell: ReturnType<typeof shellFixture>, command: string): Promise<string> {
  const result = await shell.call('bash', { command, run_in_background: true });
  assert.ok(result.ok, resultText(result));
  return String(result.output.details?.jobId);
}

describe('createJobOutputTool', () => {
  it('returns only the new output, then "(no new output)", each followed by a status line (JO-1)', async (t) => {
    const shell = shellFixture(t);
    const gate = path.join(shell.root, 'gate');
    const id = await background(
      shell,
      `echo one; echo two; while [ ! -e ${gate} ]; do sleep 0.05; done; echo three`,
    );
    await waitUntil('two lines are written', () => (shell.jobs.get(id)?.outputBytes ?? 0) >= 8);
    const first = await shell.call('job_output', { job_id: id });
    assert.ok(first.ok);
    assert.equal(resultText(first), 'one\ntwo\n[status: running]');
    const second = await shell.call('job_output', { job_id: id });
    assert.equal(resultText(second), '(no new output)\n[status: running]');
    writeFileSync(gate, '');
    const third = await shell.call('job_output', { job_id: id, wait: true });
    assert.equal(resultText(third), 'three\n[status: done]');
  });

  it('never blocks without wait, and a wait that times out leaves the job running (JO-2)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    const id = await background(shell, `echo begin; sleep ${tag}`);
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    const quick = await shell.call('job_output', { job_id: id });
    assert.match(resultText(quick), /\[status: running\]$/);
    const waited = await shell.call('job_output', { job_id: id, wait: true, timeout_ms: 200 });
    assert.ok(waited.ok);
    assert.match(resultText(waited), /\[status: running\]$/);
    assert.equal(processesMatching(`sleep ${tag}`).length, 1, 'waiting never kills');
    assert.equal(shell.jobs.get(id)?.state, 'running');
  });

  it('waits 30 s by default and accepts timeout_ms only from 1 to 600000 (JO-3)', async (t) => {
    const shell = shellFixture(t);
    const tool = shell.tools.get('job_output')!;
    const schema = tool.modelTool.inputSchema as { properties: Record<string, Record<string, unknown>> };
    assert.equal(schema.properties.timeout_ms?.minimum, 1);
    assert.equal(schema.properties.timeout_ms?.maximum, 600_000);
    assert.match(String(schema.properties.timeout_ms?.description), /Default 30000/);
    for (const timeout_ms of [0, 600_001, -5, 1.5]) {
      const result = await shell.call('job_output', { job_id: 'bash-1', wait: true, timeout_ms });
      assert.ok(!result.ok);
      assert.equal(result.error.code, 'ARGUMENT_VALIDATION', String(timeout_ms));
    }
    const { JOB_OUTPUT_DEFAULT_WAIT_MS } = await import('../../src/shell/shell-tools-options.js');
    assert.equal(JOB_OUTPUT_DEFAULT_WAIT_MS, 30_000);
  });

  it('rejects an invalid filter without consuming any output (JO-4)', async (t) => {
    const shell = shellFixture(t);
    const id = await background(shell, 'echo alpha; echo beta');
    await shell.jobs.wait(id);
    const invalid = await shell.call('job_output', { job_id: id, filter: '(unclosed' });
    assert.ok(!invalid.ok);
    assert.equal(invalid.error.code, 'ARGUMENT_VALIDATION');
    assert.match(invalid.error.message, /^invalid filter: unterminated group$/);
    assert.ok(!invalid.error.toModelText().includes('(unclosed'), 'the pattern is not echoed');
    const filtered = await shell.call('job_output', { job_id: id, filter: '^b' });
    assert.equal(resultText(filtered), 'beta\n[status: done]', 'the invalid call consumed nothing');
    const after = await shell.call('job_output', { job_id: id });
    assert.equal(resultText(after), '(no new output)\n[status: done]', 'filtered-out lines are consumed too');
  });

  it('a job_output filter ^(a+)+$ over a line of 46 a does not block the host (issue 15: hangs)', async () => {
    // In its own process: on the old code the filter ran V8's backtracking engine on the host's
    // thread and the process never answered.
    const outcome = await runIsolatedCall('job-output-filter');
    assert.equal(outcome.blocked, false, 'the call blocked its process');
    if (outcome.blocked) return;
    assert.equal(outcome.result.ok, true, outcome.result.text);
    assert.equal(
      outcome.result.text,
      `${'a'.repeat(46)}\n[status: done]`,
      'JavaScript meaning: only the all-a line matches',
    );
  });

  it('refuses a filter with look-around or a backreference, saying why, without consuming output', async (t) => {
    const shell = shellFixture(t);
    const id = await background(shell, 'echo alpha; echo beta');
    await shell.jobs.wait(id);
    for (const filter of ['(?=a)alpha', '(a)\\1', '(?<!x)beta']) {
      const refused = await shell.call('job_output', { job_id: id, filter });
      assert.ok(!refused.ok, filter);
      assert.equal(refused.error.code, 'ARGUMENT_VALIDATION');
      assert.match(
        refused.error.message,
        /^invalid filter: a (look-ahead|look-behind|backreference) .*needs a backtracking engine/,
      );
      assert.match(refused.error.toModelText(), /without look-around or backreferences/);
      assert.ok(!refused.error.toModelText().includes(filter), 'the pattern is not echoed');
    }
    const filtered = await shell.call('job_output', { job_id: id, filter: 'ph|^b' });
    assert.equal(resultText(filtered), 'alpha\nbeta\n[status: done]', 'nothing was consumed by the refusals');
  });

  it('reports an unknown id as JOB_NOT_FOUND and a closed manager as unavailable (JO-5)', async (t) => {
    const shell = shellFixture(t);
    const unknown = await shell.call('job_output', { job_id: 'bash-404' });
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.code, 'JOB_NOT_FOUND');
    assert.match(unknown.error.message, /^no background job has that id/);
    const blank = await shell.call('job_output', { job_id: '   ' });
    assert.ok(!blank.ok);
    assert.equal(blank.error.code, 'ARGUMENT_VALIDATION');
    assert.equal(blank.error.message, 'job_id is required');
    await shell.jobs.close();
    for (const name of ['job_output', 'job_kill']) {
      const closed = await shell.call(name, { job_id: 'bash-1' });
      assert.ok(!closed.ok);
      assert.match(closed.error.message, /background jobs are not available in this context/, name);
    }
  });

  it('shows the exit code of a failed job and its metadata (JO-6)', async (t) => {
    const shell = shellFixture(t);
    const id = await background(shell, 'echo failing; exit 4');
    const result = await shell.call('job_output', { job_id: id, wait: true });
    assert.ok(result.ok);
    assert.equal(resultText(result), 'failing\n[status: failed, exit code 4]');
    assert.equal(result.output.details?.exitCode, 4);
    assert.equal(result.output.details?.state, 'failed');
  });

  it('keeps its result bounded and tells how to read what it skipped (JO-7)', async (t) => {
    const shell = shellFixture(t);
    const id = await background(shell, "seq -f '%07g' 1 300000");
    const result = await shell.call('job_output', { job_id: id, wait: true });
    assert.ok(result.ok);
    const text = resultText(result);
    assert.ok(Buffer.byteLength(text) <= 64 * 1024 + 400);
    assert.match(text, /^\[\.\.\. \d+ earlier bytes of new output skipped; read them with: tail -c \+1 '/);
    assert.ok(text.endsWith('0300000\n[status: done]'));
    assert.equal(result.output.details?.newBytes, 2_400_000);
  });
});
